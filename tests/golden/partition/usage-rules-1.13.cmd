$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --max-dist-from-bw 3 --policy pytorch-1.13 2>&1
