$SYMCUT run --graph 0/0:backward ../../data/read/train.torch_logs.txt | head -1
