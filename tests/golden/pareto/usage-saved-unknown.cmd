$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --saved nosuch
