$SYMCUT validate --help
