awk 'BEGIN { print "sym s0 = 8"; printf "guard "; for (i = 0; i < 100000; i++) printf "("; printf "s0 > 2"; for (i = 0; i < 100000; i++) printf ")"; print "" }' | "$SYMCUT" env -
