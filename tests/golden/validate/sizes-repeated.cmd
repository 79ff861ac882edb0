"$SYMCUT" validate ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --sizes s0=3 --sizes s1=5,s2=4 --sizes s0=6 --seed 2
