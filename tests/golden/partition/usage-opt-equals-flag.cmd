$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --no-cse=1 2>&1
