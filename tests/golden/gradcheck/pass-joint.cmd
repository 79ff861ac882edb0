$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum.joint.txt --max-per-input 8 | sed "/^worst/d"
