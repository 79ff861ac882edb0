$SYMCUT validate ../../../examples/fn_mm_gelu_sum_dyn.joint.txt --fw ../../data/interp/fn_mm_gelu_sum_dyn.fw.txt --bw ../../data/interp/fn_mm_gelu_sum_dyn.bw.txt --sizes s0=5,s1=16,s2=24 --seed 9
