$SYMCUT random --seed 2 --nodes 8 --symbolic --features views,symints,reductions,several_outputs --forward
