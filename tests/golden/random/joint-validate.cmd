d=$(mktemp -d) || exit 99; $SYMCUT random --seed 4 --nodes 5 --features broadcast >"$d/j.txt" && (cd "$d" && $SYMCUT validate j.txt --policy exact); rc=$?; rm -rf "$d"; exit $rc
