$SYMCUT graph --print ../../../examples/mlp_gelu.joint.torch_logs.txt
