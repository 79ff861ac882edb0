$SYMCUT partition --strict --forward ../../data/gradcheck/unknown-op.forward.txt
