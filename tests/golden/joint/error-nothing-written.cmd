out=$(mktemp -d) && $SYMCUT joint ../../data/gradcheck/unknown-op.forward.txt -o "$out/j.txt"; echo "status $?"; ls "$out"; rm -rf "$out"
