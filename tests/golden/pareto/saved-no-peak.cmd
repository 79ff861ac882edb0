$SYMCUT partition ../../../examples/mlp_gelu.joint.txt --saved primals_5,addmm,t_2 --no-peak
