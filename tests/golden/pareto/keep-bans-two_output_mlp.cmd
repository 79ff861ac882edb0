$SYMCUT pareto ../../../examples/two_output_mlp.joint.txt --keep-bans --no-peak
