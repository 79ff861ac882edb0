$SYMCUT partition --help
