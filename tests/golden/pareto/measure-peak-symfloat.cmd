$SYMCUT pareto ../../../examples/zoo/llama_block_dyn.joint.txt --policy exact --params 4,5,6,7,8,9,10,12,13,14,15 --num-fwd-outputs 1 --hint s77=2,s27=8 --measure-peak --format csv
