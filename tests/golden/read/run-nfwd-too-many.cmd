$SYMCUT run --num-fwd-outputs 9 --graph 0/0:joint ../../data/read/train.torch_logs.txt
