d=$(mktemp -d) && "$SYMCUT" random --seed 1 --nodes 5000 -o "$d/joint.txt"; echo "status $?"; rm -rf "$d"
