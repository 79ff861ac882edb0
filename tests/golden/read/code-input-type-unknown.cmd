$SYMCUT graph --input-type 'c_1=f32[4]' ../../data/read/code.txt
