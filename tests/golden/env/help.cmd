"$SYMCUT" env --help
