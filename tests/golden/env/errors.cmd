"$SYMCUT" env errors.env
