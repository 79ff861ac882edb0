$SYMCUT graph ../../../examples/lstm_module.joint.txt --around mm
