$SYMCUT run ../../../examples/fn_mm_gelu_sum_dyn.joint.txt 2>&1
