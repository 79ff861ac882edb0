d=$(mktemp -d) && $SYMCUT run ../../../examples/two_output_mlp.joint.txt --seed 3 --save "$d" >/dev/null && ls "$d"; rm -rf "$d"
