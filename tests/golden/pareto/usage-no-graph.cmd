$SYMCUT pareto
