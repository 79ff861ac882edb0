$SYMCUT gradcheck --graph 0/0:joint ../../data/read/train.trace.log > /dev/null && echo checked
