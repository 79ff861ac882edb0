$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --long-chain-limit 2>&1
