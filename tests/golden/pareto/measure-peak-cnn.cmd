$SYMCUT pareto ../../../examples/zoo/cnn.joint.txt --measure-peak
