$SYMCUT partition ../../../examples/mlp_gelu_dyn.joint.txt --hint s0=32 --params 4 --no-timings
