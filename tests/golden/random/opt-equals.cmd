$SYMCUT random --seed=3 --nodes=5 --features=views,reductions
