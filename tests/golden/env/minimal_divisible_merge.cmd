"$SYMCUT" env minimal_divisible_merge.env
