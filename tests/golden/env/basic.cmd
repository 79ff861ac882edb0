"$SYMCUT" env basic.env
