$SYMCUT partition ../../../examples/lstm_module.joint.txt --format dot --around mm --depth 1 --no-timings
