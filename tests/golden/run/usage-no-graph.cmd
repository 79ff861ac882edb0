$SYMCUT run 2>&1
