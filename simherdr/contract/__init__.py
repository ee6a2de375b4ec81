"""Contract testing a herdr release: record conversations, normalize them, verify, diff.

- :mod:`.recorder`: the recording proxy (socket) and the CLI recorder's session journal;
- :mod:`.normalize`: the one place where volatile values become references (``<pane:1>``);
- :mod:`.cassette`: the cassette format and its provenance;
- :mod:`.match`: comparing an expected value with an actual one (JSON paths);
- :mod:`.targets`: where a corpus is replayed (in-process, socket, stand-in, real herdr);
- :mod:`.verify`: replaying a corpus and the miss report;
- :mod:`.diff`: comparing two corpora, with :mod:`.deltas` explaining known version deltas;
- :mod:`.cli`: ``simherdr record`` and ``simherdr contract verify|diff``.
"""
