$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy exact --tag gelu=must_recompute --no-timings
