import os
import shutil


def drop_kept_trace(stderr: str) -> str:
    """A failed ``simherdr run`` without ``--trace`` keeps its trace for the user in a
    ``simherdr-run-trace-*`` directory of TMPDIR (run.finish), outside pytest's basetemp: check
    it was kept, then remove it (a test leaves nothing in TMPDIR). Returns the trace's path."""
    [line] = [s for s in stderr.splitlines() if s.startswith("trace: ")]
    trace = line.removeprefix("trace: ")
    keep = os.path.dirname(trace)
    assert os.path.basename(keep).startswith("simherdr-run-trace-"), trace
    assert os.path.isfile(trace), f"the failed run's trace was not kept: {trace}"
    shutil.rmtree(keep)
    return trace
