"$SYMCUT" graph -v --print ../../../examples/mlp_gelu.joint.txt 2>/dev/null | cmp - ../../../examples/mlp_gelu.joint.txt && echo "same output with -v"
