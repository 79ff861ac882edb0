"$SYMCUT" env no-such-file.env
