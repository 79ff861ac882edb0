$SYMCUT random --seed 1 --nodes 6 --forward
