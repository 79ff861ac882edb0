$SYMCUT graph
