$SYMCUT graph --graph 0/0:aot_joint_graph ../../data/read/train.trace.log
