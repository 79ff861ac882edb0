$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy pytorch-1.13 --memory-budget 0.5
