$SYMCUT pareto ../../../examples/small_cnn.joint.txt --policy pytorch-2.13 --no-peak
