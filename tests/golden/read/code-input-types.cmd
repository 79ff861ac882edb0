$SYMCUT graph --print --input-type 'a_1=f32[4, 3][3, 1]cpu' --input-type 'b_1=f32[3, 2][2, 1]cpu' ../../data/read/code.txt
