$SYMCUT gradcheck ../../../examples/no_such_file.joint.txt
