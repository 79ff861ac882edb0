$SYMCUT run --help
