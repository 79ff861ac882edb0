for f in ../../../examples/*.joint.txt ../../../examples/*.forward.txt; do $SYMCUT graph --print "$f" | cmp -s - "$f" && echo "identical $(basename "$f")" || echo "DIFFERENT $(basename "$f")"; done
