"$SYMCUT" expr range --range x=0..7,y=-2..3,s0=2.. "Mod(x, 4)" "Mod(z, 4)" "Mod(z, -4)" "y**2" "FloorDiv(x, 8)" "s0*x + 2" "Max(1, y)" "x < 8" "s0 >= 3"
