$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --saved primals_1,primals_3,addmm --format json
