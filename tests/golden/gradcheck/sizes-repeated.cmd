"$SYMCUT" gradcheck ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --sizes s0=3,s1=2 --sizes s2=4 --sizes s1=5 --max-per-input 4
