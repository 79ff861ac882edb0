"$SYMCUT" env rules.env
