$SYMCUT joint ../../../examples/mlp_gelu.forward.txt --no-grad=primals_1
