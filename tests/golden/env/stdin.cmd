"$SYMCUT" env - < duck.env
