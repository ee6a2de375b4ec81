"""The simulator's parts, each behind the narrow interface its users need; ``simherdr/simulator.py``
assembles them.

- :mod:`.config`: :class:`Config`, what comes from the host, and reading herdr's config.toml;
- :mod:`.timers`: the timer heap and the task that fires it on the injected clock;
- :mod:`.changes`: change notification (waits wake on changes, not on 100 ms polls);
- :mod:`.dispatch`: request -> parse -> interceptors -> handler (SOCKET.md §1.2-1.4);
- :mod:`.hooks`: what the backends, the agent layer and the handlers call when a pane is
  made, typed into, renamed or closed.
"""
