$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --max-dist-from-bw 12x 2>&1
