"$SYMCUT" env hints.env
