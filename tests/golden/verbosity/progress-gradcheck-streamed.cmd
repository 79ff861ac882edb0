"$SYMCUT" gradcheck --progress --max-per-input 20 ../../../examples/mlp_gelu.joint.txt 2>&1
