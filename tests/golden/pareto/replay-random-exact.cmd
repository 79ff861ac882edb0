$SYMCUT pareto random-replay.joint.txt --replay-random --measure-peak
