"$SYMCUT" expr simplify "s0 + " "Max(s0," "s0 \$ 1" "s0 / 2" "s0 // 0" "Foo(s0)" "Eq(s0, 1) + 2" "s0 ** s1"
