$SYMCUT run ../../data/interp/new_factories.txt --hint s0=5 2>&1
