$SYMCUT run ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --inputs ../../../examples/fn_mm_gelu_sum_dyn.data/other_sizes
