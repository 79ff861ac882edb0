"$SYMCUT" partition unknown-op.joint.txt --no-timings
