$SYMCUT graph ../../data/read/train.trace.log
