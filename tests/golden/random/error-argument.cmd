$SYMCUT random --seed 1 extra
