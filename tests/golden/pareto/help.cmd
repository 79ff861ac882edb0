$SYMCUT pareto --help
