$SYMCUT random --seed 1 --features views,bogus
