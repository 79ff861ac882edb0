"$SYMCUT" random --help | tail -5
