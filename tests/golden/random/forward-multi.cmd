$SYMCUT random --seed 22 --nodes 8 --features multi_output,random,data_dependent --forward
