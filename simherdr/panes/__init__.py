"""Pane backends: what runs behind a pane's terminal (simulated by default, real PTYs optional)."""
