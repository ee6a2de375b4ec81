"""herdr's host-side core that its CLI and its server both run, shared by the stand-in and the
simulator: ``integration`` (install / uninstall / status of the agent integrations, file I/O
under the agents' directories) and ``config_keys`` (config.toml's known keys and
``diagnose``). Stdlib-only and fast to import (the stand-in calls it); it imports nothing of
simherdr but ``facts``; its tables are package data (``data/*.json``, read once on first use).
"""
