for n in '' '--unbacked-fallback 64'; do $SYMCUT partition ../../../examples/mlp_gelu_dyn.joint.txt $n --no-timings | sed -n '/^saved bytes/p;/^warning/p'; done
