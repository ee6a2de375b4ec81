"""`make demo` keeps working: it drives a simulator process through the stand-in binary. The
`simherdr demo` process runs in the background (tests/background.py, tests/process_runs.py):
its ~1.2 s of mostly waiting cost no worker."""

from tests import background


def test_demo_runs_end_to_end(request):
    p = background.result(request.config, "demo", "demo")  # `python -m simherdr demo`
    assert p["returncode"] == 0, p["stdout"] + p["stderr"]
    assert "agent status over the session: idle -> working -> done -> idle" in p["stdout"]
    assert "socket removed: True" in p["stdout"]
    assert '"code":"pane_not_found"' in p["stdout"]
