$SYMCUT graph --input-type 'a_1' ../../data/read/code.txt
