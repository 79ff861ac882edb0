out=$("$SYMCUT" expr simplify --range s0=2..,s1=1..4 -f exprs.txt 2>/dev/null); s=$?; printf '%s\n' "$out" | paste -d '|' exprs.txt -; exit $s
