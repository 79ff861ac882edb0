$SYMCUT validate --forward ../../data/gradcheck/unknown-op.forward.txt > /dev/null
