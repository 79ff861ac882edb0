$SYMCUT validate ../../../examples/mlp_gelu.joint.txt --rule-off materialized-backward
