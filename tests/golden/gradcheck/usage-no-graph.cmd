$SYMCUT gradcheck 2>&1
