"$SYMCUT" env --bogus
