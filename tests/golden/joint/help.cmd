$SYMCUT joint --help
