$SYMCUT random --nodes=0 2>&1
