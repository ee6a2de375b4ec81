"""The stand-in ``herdr`` CLI, laid out along herdr's ``src/cli/*.rs``.

:mod:`.core` (context, global arguments, dispatch), :mod:`.base` (path rules, failures and
exits: below everything), :mod:`.scan` (the one flag scanner), :mod:`.table` (one row per
verb), :mod:`.wire` (socket and JSON; :mod:`.rust`, :mod:`.rustvalue` for its rare paths),
group modules for irregular bodies (:mod:`.agent`, :mod:`.server`, :mod:`.status`), help and
completion (:mod:`.help`, :mod:`.spec`, :mod:`.completion`).  Entry points: :func:`main` (what
the launcher written by :mod:`simherdr.stub.install` calls) and :func:`run` (explicit environment
and byte streams, for in-process tests).
"""

from .core import main, run

__all__ = ["main", "run"]
