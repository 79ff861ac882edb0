$SYMCUT run ../../../examples/two_output_mlp.joint.txt --rtol 1e-3 2>&1
