"$SYMCUT" env minimal_many_neighbors.env
