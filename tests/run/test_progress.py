"""Progress on long work: a line rewritten in place on a terminal, nothing when not a tty
(`contract verify` over a corpus, end to end, both ways)."""

from __future__ import annotations

import io
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

from simherdr.progress import Progress
from tests.inproc import simherdr_main

CORPUS = Path(__file__).resolve().parents[1] / "contract" / "corpus" / "0.9.3"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_each_step_and_a_cleared_line(monkeypatch):
    monkeypatch.setattr("simherdr.progress.REDRAW", 0.0)
    out = Tty()
    bar = Progress(3, "verify", stream=out)
    for name in ("a", "b", "c"):
        bar.step(name)
    bar.close()
    text = out.getvalue()
    assert "verify: 1/3 a" in text and "verify: 3/3 c" in text
    assert text.endswith("\r\x1b[K") and "\n" not in text


def test_not_a_terminal_stays_quiet():
    out = io.StringIO()
    bar = Progress(3, "verify", stream=out)
    for name in ("a", "b", "c"):
        bar.step(name)
    bar.close()
    assert out.getvalue() == "" and bar.done == 3


def _verify(corpus: Path, stderr) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "simherdr", "contract", "verify", str(corpus),
         "--target", "inprocess", "--no-pace"],
        stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=300,
        env=dict(os.environ, TERM="xterm"),
    )  # fmt: skip


def test_contract_verify_shows_progress_on_a_terminal_only(tmp_path, monkeypatch):
    # a corpus of the two smallest cassettes (a step each; the whole corpus is verified by
    # tests/contract: here ~0.28 -> ~0.2 s of CPU per run)
    for cassette in sorted(CORPUS.glob("*.json"), key=lambda p: p.stat().st_size)[:2]:
        shutil.copy(cassette, tmp_path / cassette.name)
    # not a terminal: in process (tests/inproc.py, stderr a StringIO), TERM as the terminal's
    # run below, which is the process (its stderr a real terminal)
    monkeypatch.setenv("TERM", "xterm")
    quiet = simherdr_main("contract", "verify", str(tmp_path), "--target", "inprocess", "--no-pace")
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert "contract verify --target inprocess:" not in quiet.stderr and "\r" not in quiet.stderr
    leader, follower = pty.openpty()
    try:
        loud = _verify(tmp_path, follower)
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    shown = b"".join(chunks).decode(errors="replace")
    assert loud.returncode == 0 and loud.stdout == quiet.stdout
    n = len(list(tmp_path.glob("*.json")))  # one step per cassette
    assert n == 2
    assert "contract verify --target inprocess: " in shown and f"{n}/{n} " in shown, shown
    assert "\x1b[K" in shown
