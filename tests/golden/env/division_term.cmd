"$SYMCUT" env division_term.env
