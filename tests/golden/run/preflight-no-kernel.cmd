$SYMCUT run ../../data/interp/no_kernel.txt 2>&1
