$SYMCUT run ../../data/kernels/sdpa/graph.txt --inputs ../../data/kernels/sdpa/in --expect ../../data/kernels/sdpa/out | tail -1
