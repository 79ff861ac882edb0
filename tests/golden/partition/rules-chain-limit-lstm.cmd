for n in 0 2 100; do $SYMCUT partition ../../../examples/lstm_module.joint.txt --long-chain-limit $n --no-timings | sed -n '/^ban rules/p;/^saved tensors/p;/^saved bytes/p;/^recompute cost/p'; done
