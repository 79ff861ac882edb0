$SYMCUT gradcheck ../../../examples/fn_mm_gelu_sum.joint.txt --max-per-input 2 > /dev/null; echo "exit status $?"
