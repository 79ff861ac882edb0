$SYMCUT gradcheck ../../../examples/mlp_gelu.forward.txt
