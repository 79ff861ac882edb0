$SYMCUT partition ../../../examples/mlp_gelu_dyn.joint.txt --policy=exact --hint=s0=8 --rule-off=reductions --max-dist-from-bw=50 --format=json --no-timings
