$SYMCUT run ../../data/interp/cuda_device.txt 2>&1
