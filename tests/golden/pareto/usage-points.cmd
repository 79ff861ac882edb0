$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --points 1001
