"$SYMCUT" env unbacked_order.env
