$SYMCUT random --nodes 0
