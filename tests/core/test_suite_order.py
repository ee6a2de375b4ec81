"""The suite's own run order (tests/conftest.py): the tests that mostly wait are dealt out among
the others instead of running side by side at the start, every test is still run once, and the
tests that read a background job's results stay last."""

from __future__ import annotations

from itertools import pairwise
from types import SimpleNamespace

from tests import conftest


def _items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=n) for n in nodeids]


def test_the_waiting_tests_are_spread_over_the_head_in_their_order():
    waits = [f"tests/contract/test_suites.py::test_{i}" for i in range(4)]
    work = [f"tests/model/test_x.py::test_{i}" for i in range(20)]
    order = [i.nodeid for i in conftest.interleave_waits(_items(*waits, *work))]
    assert sorted(order) == sorted(waits + work)  # each once
    assert [n for n in order if n in waits] == waits and [n for n in order if n in work] == work
    at = [order.index(n) for n in waits]
    assert at[0] == 0 and all(b - a >= 4 for a, b in pairwise(at))  # not together
    assert at[-1] < len(order) * conftest.WAITS_SPREAD  # done before the tail
    assert order[-1] == work[-1]


def test_paced_replays_wait_and_in_process_replays_work():
    assert conftest._waits(
        _items("tests/contract/test_contract.py::test_cassette[x-stub-0.8.2]")[0]
    )
    assert conftest._waits(
        _items("tests/contract/test_contract.py::test_cassette[x-socket-0.9.3]")[0]
    )
    assert not conftest._waits(
        _items("tests/contract/test_contract.py::test_cassette[x-inprocess-0.9.3]")[0]
    )


def test_the_collected_order_keeps_the_background_readers_last(request):
    items = request.session.items
    if len(items) < 1000:
        return  # a partial run: nothing to say about the whole order
    from tests import background

    readers = [i for i, item in enumerate(items) if background.job_of(item) is not None]
    assert readers and readers == list(range(len(items) - len(readers), len(items)))


def test_a_reader_with_work_of_its_own_comes_first_among_the_readers():
    story = "tests/traceview/test_story.py::test_the_story_in_headless_chromium"
    others = [
        "tests/traceview/test_story.py::test_the_axis_starts_at_the_first_entry_shown",
        "tests/traceview/test_story.py::test_the_axis_is_monotonic_and_compresses_only_long_gaps",
    ]
    items = _items(*others, story, "tests/model/test_x.py::test_0")
    items.sort(key=conftest._slow_rank)
    assert [i.nodeid for i in items] == ["tests/model/test_x.py::test_0", story, *others]
