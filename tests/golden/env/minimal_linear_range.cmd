"$SYMCUT" env minimal_linear_range.env
