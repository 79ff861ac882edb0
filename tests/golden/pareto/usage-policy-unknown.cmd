$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --policy bogus
