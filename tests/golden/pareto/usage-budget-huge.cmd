$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy exact --memory-budget 99999999999TiB
