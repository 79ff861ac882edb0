$SYMCUT run ../../../examples/mlp_gelu_dyn.joint.txt --sizes s0=7 --seed 5
