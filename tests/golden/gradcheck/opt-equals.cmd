$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum.joint.txt --max-per-input=4 --eps=1e-5 --seed=2
