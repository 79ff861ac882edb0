$SYMCUT random --seed 4 --nodes 5 --features broadcast
