$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --compare bad.compare
