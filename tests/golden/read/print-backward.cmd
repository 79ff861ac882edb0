$SYMCUT graph --graph 0/0:backward --print ../../data/read/train.torch_logs.txt
