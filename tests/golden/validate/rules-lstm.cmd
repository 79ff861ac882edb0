$SYMCUT validate ../../../examples/lstm_module.joint.txt --aggressive-recomputation
