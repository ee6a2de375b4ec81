"""0.9.3 stand-in rows for the agent deltas, beside 0.8.2's answers: words after ``--`` in
``pane report-agent[-session]`` are ``resume_argv`` (0.9.2 #4687, [H093] src/cli/pane.rs
split_resume_argv), and an unreadable ``agent explain --file`` is a JSON error (0.9.0 #3022,
[H093] src/cli/agent.rs agent_explain)."""

from __future__ import annotations

import json

import pytest
from stub_fake import ok

from tests.releases import distinguishing, grammar, kinds, resolve, rows

REPORT = ("pane", "report-agent", "w1:p1", "--source", "s", "--agent", "bot", "--state", "idle")
SESSION = ("pane", "report-agent-session", "w1:p1", "--source", "s", "--agent", "bot")


def _serve(fake, version):
    fake.version, fake.protocol = version, resolve(version).protocol
    fake.default_reply = ok()


@pytest.mark.parametrize("version", distinguishing("report_resume_argv"))
def test_report_agent_resume_words(cli, fake, version):
    _serve(fake, version)
    res = cli(*REPORT, "--", "bot", "--resume", "s 1", version=version)
    if not rows(version).report_resume_argv:
        assert res.rc == 2 and res.stderr.strip() == "unknown option: --"
        assert fake.ops() == []
        return
    assert res.rc == 0, res.stderr
    params = fake.ops()[0]["params"]
    assert params["resume_argv"] == ["bot", "--resume", "s 1"]
    assert list(params)[-1] == "resume_argv"  # the struct's last field


def test_report_agent_session_resume_words_after_an_empty_dash_dash(cli, fake):
    _serve(fake, "0.9.3")
    assert cli(*SESSION, "--", version="0.9.3").rc == 0
    assert fake.ops()[0]["params"]["resume_argv"] == []
    assert cli(*SESSION, version="0.9.3").rc == 0
    assert "resume_argv" not in fake.ops()[1]["params"]


def test_report_agent_options_after_dash_dash_are_resume_words(cli, fake):
    _serve(fake, "0.9.3")
    res = cli("pane", "report-agent", "w1:p1", "--source", "s", "--", "--state", version="0.9.3")
    assert res.rc == 2 and res.stderr.strip() == "missing required --agent"


def test_report_agent_usage_names_the_resume_command(cli):
    res = cli("pane", "report-agent", version="0.9.3")
    assert res.rc == 2
    assert res.stderr.strip().endswith("[--agent-session-path PATH] [-- <resume-command...>]")
    res = cli("pane", "report-agent", version="0.8.2")
    assert res.stderr.strip().endswith("[--agent-session-path PATH]")


@pytest.mark.parametrize("version", distinguishing("cli_explain_file_errors_as_envelope"))
def test_explain_file_missing(cli, tmp_path, version):
    path = str(tmp_path / "missing.txt")
    res = cli("agent", "explain", "--file", path, "--agent", "pi", "--json", version=version)
    assert res.rc == 1 and res.stdout == ""
    if not grammar(version).explain_file_errors_as_envelope:
        assert res.stderr == (
            'Error: Os { code: 2, kind: NotFound, message: "No such file or directory" }\n'
        )
        return
    assert json.loads(res.stderr) == {
        "id": "cli:agent:explain",
        "error": {
            "code": "agent_explain_file_read_failed",
            "message": f"failed to read agent explain file {path}: "
            "No such file or directory (os error 2)",
        },
    }
    assert res.stderr.startswith('{"id":"cli:agent:explain","error":{"code":')


@pytest.mark.parametrize("version", distinguishing("tables.agent_kinds"))
def test_agent_start_knows_the_versions_kinds(cli, fake, version):
    _serve(fake, version)
    res = cli("agent", "start", "m", "--kind", "muse", "--pane", "w1:p1", version=version)
    if "muse" not in kinds(version):
        assert (res.rc, res.stderr.strip()) == (2, "unsupported interactive agent kind: muse")
        assert fake.ops() == []
    else:
        starts = [op for op in fake.ops() if op["method"] == "agent.start"]
        assert starts and starts[0]["params"]["kind"] == "muse"  # it reached the server
