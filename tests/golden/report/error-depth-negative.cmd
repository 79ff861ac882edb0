$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --format dot --around addmm --depth -1
