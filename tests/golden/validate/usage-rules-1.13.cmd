$SYMCUT validate ../../../examples/mlp_gelu.joint.txt --policy pytorch-1.13 --aggressive-recomputation 2>&1
