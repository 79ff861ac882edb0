$SYMCUT graph --role sideways ../../data/read/code.txt
