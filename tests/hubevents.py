"""The events a harness's hub published: (kind, data) pairs, or their kinds, after a mark."""

from __future__ import annotations


def events(h, since=0):
    return [(k, d) for _, k, d in h.sim.hub.after(since)]


def kinds(h, since=0):
    return [k for k, _ in events(h, since)]
