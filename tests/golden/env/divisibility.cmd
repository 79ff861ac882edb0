"$SYMCUT" env divisibility.env
