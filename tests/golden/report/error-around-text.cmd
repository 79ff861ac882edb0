$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --around addmm
