$SYMCUT run ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --hint s0=5,s1=3,s2=2 | head -2
