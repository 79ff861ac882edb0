$SYMCUT graph ../../../examples/mlp_gelu.joint.txt
