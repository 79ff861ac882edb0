"$SYMCUT" expr eval --bind s0=8,s1=3 -f exprs.txt
