$SYMCUT graph --graph '<lambda>' --print ../../data/read/constructs.txt
