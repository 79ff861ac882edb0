head -c 13100 ../../data/read/train.trace.log | $SYMCUT graph --graph 0/0:joint -
