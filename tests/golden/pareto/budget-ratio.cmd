$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy exact --memory-budget 0.5 --format json --no-timings
