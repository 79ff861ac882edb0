$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --format dot --depth 2
