$SYMCUT partition ../../../examples/fn_mm_gelu_sum.joint.txt --policy pytorch-1.13 --format dot
