"$SYMCUT" env minimal.env
