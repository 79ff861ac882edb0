$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy pytorch-2.13 --memory-budget 0.5 --format json --no-timings | sed -n '/"memory_budget"/,/^  }/p'
