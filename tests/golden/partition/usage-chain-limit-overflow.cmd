$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --long-chain-limit 2147483648 2>&1
