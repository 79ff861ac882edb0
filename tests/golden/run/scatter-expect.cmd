$SYMCUT run ../../data/kernels/index/graph2.txt --inputs ../../data/kernels/index/in2 --expect ../../data/kernels/index/out2 | tail -1
