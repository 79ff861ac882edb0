"$SYMCUT" env integer.env
