"$SYMCUT" partition -q unknown-op.joint.txt --no-timings
