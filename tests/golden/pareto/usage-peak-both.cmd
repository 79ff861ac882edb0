$SYMCUT pareto ../../../examples/mlp_gelu.joint.txt --no-peak --measure-peak
