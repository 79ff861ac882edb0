$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --saved primals_5 --no-peak --measure-peak
