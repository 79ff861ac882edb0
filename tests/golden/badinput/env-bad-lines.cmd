"$SYMCUT" env env-bad-lines.env
