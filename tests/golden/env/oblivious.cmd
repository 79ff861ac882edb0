"$SYMCUT" env oblivious.env
