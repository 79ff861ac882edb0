"$SYMCUT" partition ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --hint s0=3000000000
