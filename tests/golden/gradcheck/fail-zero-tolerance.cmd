$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum.joint.txt --max-per-input 2 --atol 0 --rtol 0 | tail -1 | sed "s/analytic.*/.../"
