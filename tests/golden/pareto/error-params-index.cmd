$SYMCUT pareto ../../../examples/zoo/gpt2_block.joint.txt --params 99,
