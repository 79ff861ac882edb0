"$SYMCUT" env contradiction.env
