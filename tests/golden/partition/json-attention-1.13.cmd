$SYMCUT partition ../../../examples/attention_single_head.joint.txt --policy pytorch-1.13 --format json --no-timings | sed -n '1,/"saved":/p'
