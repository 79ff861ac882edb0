SYMCUT_DOT=/nonexistent/dot $SYMCUT partition ../../../examples/small_cnn.joint.txt --policy exact --memory-budget 1.2MB --format html --no-timings
