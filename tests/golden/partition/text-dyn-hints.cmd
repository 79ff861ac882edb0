$SYMCUT partition ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --policy pytorch-1.13 --hint s0=8,s1=16,s2=32 --no-timings
