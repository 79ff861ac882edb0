$SYMCUT validate --forward ../../../examples/fn_mm_gelu_sum.joint.txt
