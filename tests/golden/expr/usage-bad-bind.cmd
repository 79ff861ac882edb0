"$SYMCUT" expr eval --bind s0=abc s0
