$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --policy exact --memory-budget 0 --format json --no-timings | sed -n '1,/"memory_budget"/p;/"nodes": \[/,/^    }/p'
