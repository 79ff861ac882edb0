d=$(mktemp -d) && "$SYMCUT" random --progress -q --seed 1 --nodes 5000 -o "$d/a.txt" && "$SYMCUT" --progress random --no-progress --seed 1 --nodes 5000 -o "$d/b.txt"; echo "status $?"; rm -rf "$d"
