$SYMCUT gradcheck --forward ../../../examples/mlp_gelu.joint.txt
