$SYMCUT pareto random-replay.joint.txt --no-peak
