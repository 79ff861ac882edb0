$SYMCUT validate ../../../examples/mlp_gelu_dyn.joint.txt --hint s0=32 --sizes s0=7 | tail -1
