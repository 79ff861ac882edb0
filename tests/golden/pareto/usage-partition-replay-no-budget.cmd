$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --replay-random --policy exact
