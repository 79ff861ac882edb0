$SYMCUT joint ../../data/gradcheck/unknown-op.forward.txt
