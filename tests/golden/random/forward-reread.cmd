$SYMCUT random --seed 5 --nodes 7 --forward | $SYMCUT graph - --print
