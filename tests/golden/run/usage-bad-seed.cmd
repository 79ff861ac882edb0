$SYMCUT run ../../../examples/mlp_gelu.joint.txt --seed x 2>&1
