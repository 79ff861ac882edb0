$SYMCUT partition ../../data/read/unknown-op.joint.txt > /dev/null && echo partitioned
