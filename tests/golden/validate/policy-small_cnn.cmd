$SYMCUT validate ../../../examples/small_cnn.joint.txt --policy pytorch-1.13 | tail -1
