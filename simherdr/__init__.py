"""simherdr: a faithful herdr simulator."""

__version__ = "0.1.0"
