d=$(mktemp -d) && "$SYMCUT" joint --progress ../../../examples/mlp_gelu.forward.txt -o "$d/joint.txt" 2>&1 | sed -e "s|$d|TMP|"; rm -rf "$d"
