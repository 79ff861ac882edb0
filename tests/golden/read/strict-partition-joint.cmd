$SYMCUT partition --strict ../../data/read/unknown-op.joint.txt
