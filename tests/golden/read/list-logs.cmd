$SYMCUT graph ../../data/read/train.torch_logs.txt
