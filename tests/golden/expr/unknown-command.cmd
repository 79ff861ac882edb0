"$SYMCUT" frobnicate
