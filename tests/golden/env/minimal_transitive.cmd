"$SYMCUT" env minimal_transitive.env
