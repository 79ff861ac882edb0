"$SYMCUT" env asserts.env
