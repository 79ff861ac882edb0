$SYMCUT graph --hint s0=-1 ../../../examples/mlp_gelu.joint.txt
