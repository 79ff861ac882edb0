$SYMCUT validate --forward ../../../examples/two_output_mlp.forward.txt --policy exact | tail -1
