$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --no-peak
