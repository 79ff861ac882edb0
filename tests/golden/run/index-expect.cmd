$SYMCUT run ../../data/kernels/index/graph.txt --inputs ../../data/kernels/index/in --expect ../../data/kernels/index/out | tail -1
