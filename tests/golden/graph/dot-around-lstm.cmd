$SYMCUT graph --dot ../../../examples/lstm_module.joint.txt --around mm --depth 1
