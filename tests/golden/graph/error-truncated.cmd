head -c 650 ../../../examples/mlp_gelu.joint.txt | $SYMCUT graph -
