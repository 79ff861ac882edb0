$SYMCUT pareto random-replay.joint.txt --policy pytorch-2.13 --replay-random
