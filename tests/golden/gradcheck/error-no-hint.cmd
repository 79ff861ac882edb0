$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum_dyn.joint.txt
