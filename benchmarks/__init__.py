"""simherdr's benchmarks (``make bench`` / ``python -m benchmarks``).

Speed is measured here, never by timed unit tests. Every figure that has a target is a RATIO
measured side by side in one run against a floor on the same machine (a bare asyncio echo
server, a bare ``python -I -S -c pass``), or a budget: so a busy machine moves both sides.
Results: a table on stdout and ``bench-results/bench.json``.
"""
