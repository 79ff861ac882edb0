$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --rule-off materialized-backward --no-timings
