$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --max-dist-from-bw -1 2>&1
