d=$(mktemp -d) && $SYMCUT run ../../../examples/two_output_mlp.joint.txt --seed 3 --save "$d/new" >/dev/null && ls "$d/new"; rm -rf "$d"
