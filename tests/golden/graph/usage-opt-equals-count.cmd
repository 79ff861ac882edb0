$SYMCUT graph --num-fwd-outputs=-1 ../../../examples/mlp_gelu.joint.txt 2>&1
