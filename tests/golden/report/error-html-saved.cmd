$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --format html --saved addmm
