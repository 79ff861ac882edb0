$SYMCUT graph --hint s0=8,s1=16 --hint s2=32 ../../../examples/fn_mm_gelu_sum_dyn.joint.txt
