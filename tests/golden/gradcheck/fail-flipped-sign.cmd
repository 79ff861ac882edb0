$SYMCUT gradcheck ../../data/gradcheck/fn_mm_gelu_sum.bad-joint.txt --max-per-input 4
