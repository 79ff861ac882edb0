$SYMCUT pareto ../../../examples/attention_single_head.joint.txt --policy pytorch-2.13 --format svg
