$SYMCUT graph --graph branch --print ../../data/read/constructs.txt
