"$SYMCUT" env data_dependent.env
