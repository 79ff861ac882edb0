$SYMCUT gradcheck --forward ../../../examples/two_output_mlp.forward.txt --max-per-input 4 | sed "/^worst/d"
