"$SYMCUT" expr frobnicate s0
