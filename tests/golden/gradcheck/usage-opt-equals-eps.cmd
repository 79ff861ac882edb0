$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum.joint.txt --eps=0 2>&1
