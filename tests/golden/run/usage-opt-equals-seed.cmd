$SYMCUT run ../../../examples/mlp_gelu.joint.txt --seed=-1 2>&1
