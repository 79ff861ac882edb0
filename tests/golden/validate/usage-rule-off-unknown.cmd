$SYMCUT validate ../../../examples/mlp_gelu.joint.txt --rule-off nope 2>&1
