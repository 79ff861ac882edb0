"$SYMCUT" env replacements.env
