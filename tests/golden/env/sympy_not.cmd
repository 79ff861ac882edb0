"$SYMCUT" env sympy_not.env
