$SYMCUT partition --forward ../../../examples/mlp_gelu.forward.txt --policy pytorch-1.13 --no-timings
