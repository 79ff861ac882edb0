$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --policy pytorch-1.13
