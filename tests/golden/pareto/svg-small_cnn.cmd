$SYMCUT pareto ../../../examples/small_cnn.joint.txt --format svg
