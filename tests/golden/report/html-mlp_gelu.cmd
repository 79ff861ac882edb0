SYMCUT_DOT=/nonexistent/dot $SYMCUT partition ../../../examples/mlp_gelu.joint.txt --format html --no-timings
