"$SYMCUT" env form_self_implied.env
