"$SYMCUT" env minimal_sum.env
