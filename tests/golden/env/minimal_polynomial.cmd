"$SYMCUT" env minimal_polynomial.env
