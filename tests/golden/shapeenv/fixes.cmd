"$SYMCUT" env fixes.env
