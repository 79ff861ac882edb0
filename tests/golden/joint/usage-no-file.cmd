$SYMCUT joint 2>&1
