$SYMCUT validate ../../../examples/mlp_gelu_dyn.joint.txt --sizes s0=7,s7=3 2>&1
