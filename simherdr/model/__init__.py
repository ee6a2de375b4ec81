"""The pure state model: no I/O, no clock reads."""
