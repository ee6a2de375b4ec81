"""Stand-in ``herdr`` binary: a stdlib-only CLI speaking herdr's socket protocol.

Write one with :func:`simherdr.stub.install.write_stub`; the CLI itself is
:mod:`simherdr.stub.cli`.  This package deliberately imports nothing, so the
stub's start-up path stays short.
"""
