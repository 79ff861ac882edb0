$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --rule-off no-such-rule 2>&1
