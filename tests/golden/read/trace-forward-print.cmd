$SYMCUT graph --graph 1 --print ../../data/read/train.trace.log | head -4
