$SYMCUT graph --print --dot ../../../examples/mlp_gelu.joint.txt
