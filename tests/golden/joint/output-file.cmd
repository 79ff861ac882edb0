out=$(mktemp -d) && $SYMCUT joint ../../../examples/two_output_mlp.forward.txt -o "$out/j.txt" && (cd "$out" && $SYMCUT graph j.txt | head -3); rm -rf "$out"
