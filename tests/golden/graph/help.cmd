$SYMCUT graph --help
