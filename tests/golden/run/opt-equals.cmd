$SYMCUT run ../../../examples/mlp_gelu_dyn.joint.txt --seed=3 --sizes=s0=8
