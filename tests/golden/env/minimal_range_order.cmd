"$SYMCUT" env minimal_range_order.env
