d=$(mktemp -d) || exit 99; $SYMCUT random --seed 21 >"$d/j.txt" && (cd "$d" && grep -c 'tangents_[0-9]*:' j.txt && $SYMCUT validate j.txt); rc=$?; rm -rf "$d"; exit $rc
