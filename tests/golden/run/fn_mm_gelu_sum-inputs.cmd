$SYMCUT run ../../../examples/fn_mm_gelu_sum.joint.txt --inputs ../../../examples/fn_mm_gelu_sum.data
