SYMCUT_DOT= $SYMCUT partition ../../../examples/lstm_module.joint.txt --format html --around mm --depth 2 --no-timings
