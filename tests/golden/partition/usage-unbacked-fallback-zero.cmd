$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --unbacked-fallback 0 2>&1
