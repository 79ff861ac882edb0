$SYMCUT partition ../../../examples/mlp_gelu_dyn.joint.txt --hint s0=32,batch=3 2>&1
