"$SYMCUT" expr simplify --range x=0..7 --range s0=2..1024 "FloorDiv(x, 8)" "Mod(x, 8)" "Min(x, 9)" "x < 8" "s0 >= 2" "s0 > 1024" "FloorDiv(s0, 2048)" "Max(s0, x)"
