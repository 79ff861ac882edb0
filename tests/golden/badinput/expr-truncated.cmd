"$SYMCUT" expr simplify -- 's0 + Max(s1, ' 's0 // 0' 'Mod(s0)' 's0 ** 100000000000000000000'
