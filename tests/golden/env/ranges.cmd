"$SYMCUT" env ranges.env
