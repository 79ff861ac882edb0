$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy=fastest 2>&1
