"$SYMCUT" env minimal_integer_gap.env
