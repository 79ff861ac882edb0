$SYMCUT random --seed 3 --nodes 10 --symbolic --forward
