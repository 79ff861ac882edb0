$SYMCUT graph --print --hint s0=32 ../../../examples/mlp_gelu_dyn.joint.txt
