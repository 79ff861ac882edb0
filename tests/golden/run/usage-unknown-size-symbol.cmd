$SYMCUT run ../../../examples/fn_mm_gelu_sum.joint.txt --sizes s0=3 2>&1
