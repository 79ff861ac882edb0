for n in 0 1 3 999; do $SYMCUT partition ../../../examples/lstm_module.joint.txt --max-dist-from-bw $n --no-timings | sed -n '/^ban rules/p;/^saved tensors/p;/^saved bytes/p;/^recompute cost/p'; done
