sed '33s/"str"/"str/' ../../data/read/train.trace.log | $SYMCUT graph --graph 0/0:joint -
