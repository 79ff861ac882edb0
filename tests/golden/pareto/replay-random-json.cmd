$SYMCUT pareto random-replay.joint.txt --replay-random --format json --no-peak
