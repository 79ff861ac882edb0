$SYMCUT graph --hint=s0=4 ../../../examples/mlp_gelu_dyn.joint.txt
