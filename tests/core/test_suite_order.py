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

    readers = [
        i
        for i, item in enumerate(items)
        if background.job_of(item) is not None
        and not item.nodeid.startswith(conftest.READERS_FIRST)
    ]
    assert readers and readers == list(range(len(items) - len(readers), len(items)))
    ahead = [i for i, item in enumerate(items) if item.nodeid.startswith(conftest.READERS_FIRST)]
    assert ahead == [len(items) - conftest.READERS_AHEAD - len(ahead)]  # the story's render


def test_a_reader_with_work_of_its_own_goes_ahead_of_the_last_tests():
    story = "tests/traceview/test_story.py::test_the_story_in_headless_chromium"
    work = [f"tests/model/test_x.py::test_{i}" for i in range(conftest.READERS_AHEAD + 5)]
    readers = ["tests/traceview/test_story.py::test_the_axis_starts_at_the_first_entry_shown"]
    order = [i.nodeid for i in conftest.readers_ahead(_items(*work, story, *readers))]
    assert order == work[:6] + [story] + work[6:] + readers  # 200 before the end
    short = [i.nodeid for i in conftest.readers_ahead(_items(*work[:3], story, *readers))]
    assert short == [story, *work[:3], *readers]


def test_a_reader_with_work_of_its_own_comes_first_among_the_readers():
    story = "tests/traceview/test_story.py::test_the_story_in_headless_chromium"
    others = [
        "tests/traceview/test_story.py::test_the_axis_starts_at_the_first_entry_shown",
        "tests/traceview/test_story.py::test_the_axis_is_monotonic_and_compresses_only_long_gaps",
    ]
    items = _items(*others, story, "tests/model/test_x.py::test_0")
    items.sort(key=conftest._slow_rank)
    assert [i.nodeid for i in items] == ["tests/model/test_x.py::test_0", story, *others]


def test_a_job_asks_its_key_only_of_its_own_tests():
    from tests import background

    asked = []
    job = background.Job("j", "m", lambda item: asked.append(item.nodeid) or "k", 0, "tests/a.py::")
    assert job.key(_items("tests/b.py::test_x")[0]) is None and asked == []
    assert job.key(_items("tests/a.py::test_y")[0]) == "k" and asked == ["tests/a.py::test_y"]
    story = _items("tests/traceview/test_story.py::test_the_story_in_headless_chromium")[0]
    assert background.job_of(story) == "story"
    assert background.job_of(_items("tests/traceview/test_timeline.py::test_x")[0]) is None


def test_the_rank_is_the_first_matching_prefix():
    for i, prefix in enumerate(conftest.SLOW_FIRST):
        assert conftest._slow_rank(_items(prefix + "x")[0]) <= i
    assert conftest._slow_rank(_items("tests/model/test_x.py::test_0")[0]) == len(
        conftest.SLOW_FIRST
    )
    # a later, longer prefix does not win over an earlier one it extends
    assert conftest._slow_rank(
        _items("tests/contract/test_contract.py::test_cassette[entwurf-x")[0]
    ) == (conftest.SLOW_FIRST.index("tests/contract/test_contract.py::test_cassette[entwurf"))
