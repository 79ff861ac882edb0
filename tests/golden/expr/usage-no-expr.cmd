"$SYMCUT" expr eval --bind s0=1
