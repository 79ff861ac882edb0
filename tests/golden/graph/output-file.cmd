d=$(mktemp -d) && $SYMCUT graph --print ../../../examples/two_output_mlp.joint.txt -o "$d/out.py" && cmp "$d/out.py" ../../../examples/two_output_mlp.joint.txt && echo same; rm -rf "$d"
