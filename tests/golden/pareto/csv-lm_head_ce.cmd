$SYMCUT pareto ../../../examples/lm_head_ce.joint.txt --format csv --points 3
