$SYMCUT joint ../../../examples/no_such_file.forward.txt
