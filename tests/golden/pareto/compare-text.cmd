$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --compare mlp_gelu.compare
