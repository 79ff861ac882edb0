$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --policy pytorch-2.13
