$SYMCUT pareto ../../../examples/two_output_mlp.joint.txt --policy pytorch-2.13 --keep-bans --no-peak
