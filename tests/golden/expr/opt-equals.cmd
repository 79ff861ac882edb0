$SYMCUT expr eval --bind=s0=5,s1=7 "s0*s1" "s0 // s1"
