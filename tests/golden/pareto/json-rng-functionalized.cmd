$SYMCUT partition ../../../examples/zoo/transformer_encoder_layer.joint.txt --policy pytorch-2.13 --tag native_dropout=must_recompute --format json --no-timings | grep rng_functionalized
