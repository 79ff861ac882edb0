"$SYMCUT" env minimal_divisible.env
