$SYMCUT validate ../../../examples/fn_mm_gelu_sum.joint.txt --fw=../../data/interp/fn_mm_gelu_sum.fw.txt --bw=../../data/interp/fn_mm_gelu_sum.bw.txt --seed=1
