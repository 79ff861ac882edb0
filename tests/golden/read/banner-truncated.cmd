grep -m 2 'Joint graph 0\|TRACED' ../../data/read/train.torch_logs.txt | $SYMCUT graph -
