$SYMCUT joint - < ../../../examples/fn_mm_gelu_sum.forward.txt | $SYMCUT gradcheck - --max-per-input 4 | tail -1
