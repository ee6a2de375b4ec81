"""Facts about herdr: one module per fact family (ids, error codes, kinds, keys, profiles)."""
