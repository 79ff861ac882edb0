$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy pytorch-1.13 --no-timings
