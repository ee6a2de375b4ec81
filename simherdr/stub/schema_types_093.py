"""herdr 0.9.3's API type deltas over 0.8.2 (placeholder)."""


def apply(types: dict) -> None:
    pass
