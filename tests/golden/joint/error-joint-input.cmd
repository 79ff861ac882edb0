$SYMCUT joint ../../../examples/fn_mm_gelu_sum.joint.txt
