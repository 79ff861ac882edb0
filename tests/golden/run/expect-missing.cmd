$SYMCUT run ../../../examples/two_output_mlp.joint.txt --expect /nonexistent-symcut-dir 2>&1 >/dev/null
