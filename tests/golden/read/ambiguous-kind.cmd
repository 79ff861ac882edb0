$SYMCUT run --graph joint ../../data/read/train.trace.log
