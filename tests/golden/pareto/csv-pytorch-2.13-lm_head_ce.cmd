$SYMCUT pareto ../../../examples/lm_head_ce.joint.txt --policy pytorch-2.13 --format csv
