"$SYMCUT" env minimal_linear_pair.env
