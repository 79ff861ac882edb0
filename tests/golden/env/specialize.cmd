"$SYMCUT" env specialize.env
