$SYMCUT expr simplify --range=x=0..7 "FloorDiv(x, 8)" "Mod(x, 8)"
