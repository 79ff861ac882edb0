"$SYMCUT" --quiet partition unknown-op.joint.txt --no-timings
