"$SYMCUT" validate ../../../examples/zoo/mlp_gelu_dyn.joint.txt --hint s77=8
