"$SYMCUT" env int64_sizes.env
