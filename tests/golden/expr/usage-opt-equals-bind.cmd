$SYMCUT expr simplify --bind=s0=1 s0 2>&1
