$SYMCUT gradcheck --help
