$SYMCUT validate --graph 7/0:joint ../../data/read/train.torch_logs.txt
