$SYMCUT partition ../../data/read/train.torch_logs.txt
