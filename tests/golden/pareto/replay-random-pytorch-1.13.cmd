$SYMCUT pareto random-replay.joint.txt --policy pytorch-1.13 --no-peak
