"$SYMCUT" env duck.env
