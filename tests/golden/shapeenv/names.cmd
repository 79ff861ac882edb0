"$SYMCUT" env names.env
