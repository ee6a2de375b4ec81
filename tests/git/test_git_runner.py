from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from simherdr.git import GitError, GitResult, run_git, trust_args
from simherdr.git.runner import exit_status_text, git_env


def test_run_git_uses_dash_c_and_returns_text(repo: Path) -> None:
    result = run_git(["rev-parse", "--show-toplevel"], cwd=repo)
    assert result == GitResult(0, f"{repo}\n", "")
    assert result.ok


def test_nonzero_exit_is_a_result_not_an_exception(base: Path) -> None:
    result = run_git(["rev-parse"], cwd=base / "missing")
    assert result.returncode == 128
    assert "cannot change to" in result.stderr
    assert result.failure_message() == result.stderr.strip()


def test_failure_message_falls_back_like_herdr() -> None:
    assert GitResult(1, "", "  \n").failure_message("git status") == (
        "git status failed with status exit status: 1"
    )
    assert GitResult(1, " out \n", "").failure_message() == "out"
    assert exit_status_text(-9) == "signal: 9"


def test_environment_is_cleaned_and_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    monkeypatch.setenv("GIT_TRACE", "1")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.bare")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    env = git_env({"EXTRA": "yes", "LC_ALL": "C.UTF-8"})
    assert "GIT_DIR" not in env and "GIT_TRACE" not in env
    assert "GIT_CONFIG_COUNT" not in env and "GIT_CONFIG_KEY_0" not in env
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["EXTRA"] == "yes" and env["LC_ALL"] == "C.UTF-8"  # env_extra wins
    assert git_env()["LC_ALL"] == "C"


def test_inherited_git_dir_does_not_redirect_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_DIR", "/nonexistent")
    assert run_git(["rev-parse", "--show-toplevel"], cwd=repo).stdout.strip() == str(repo)


def test_env_extra_reaches_git(repo: Path) -> None:
    result = run_git(["var", "GIT_AUTHOR_IDENT"], cwd=repo, env_extra={"GIT_AUTHOR_NAME": "Zed"})
    assert result.stdout.startswith("Zed <")


def test_timeout_kills_the_process_group(repo: Path) -> None:
    started = time.monotonic()
    with pytest.raises(GitError, match="timed out"):
        run_git(["-c", "alias.slow=!sleep 5", "slow"], cwd=repo, timeout=0.3)
    assert time.monotonic() - started < 3


def test_missing_git_binary_is_a_git_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent-bin")
    with pytest.raises(GitError) as info:
        run_git(["--version"])
    assert "(os error 2)" in info.value.message


def test_trust_args_name_the_dir_its_realpath_and_checkout(
    repo: Path, symlink_to_repo: Path
) -> None:
    args = trust_args(symlink_to_repo / "sub-does-not-exist")
    values = [arg for arg in args if arg != "-c"]
    assert f"safe.directory={symlink_to_repo}/sub-does-not-exist" in values
    assert f"safe.directory={repo}" in values
    assert args[::2] == ["-c"] * len(values)


def test_untrusted_repo_fails_and_trust_fixes_it_without_writing_config(
    repo: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    refused = run_git(["status", "--porcelain"], cwd=repo)
    assert refused.returncode != 0
    assert "dubious ownership" in refused.stderr
    trusted = run_git(["status", "--porcelain"], cwd=repo, trust=True)
    assert trusted.ok, trusted.stderr
    assert (git_env / ".gitconfig").read_text() == ""
    assert "safe" not in (repo / ".git" / "config").read_text()


def test_trust_through_a_symlink(symlink_to_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    assert run_git(["status"], cwd=symlink_to_repo, trust=True).ok
    assert not run_git(["status"], cwd=symlink_to_repo).ok


def test_run_git_without_cwd_runs_in_process_cwd(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    assert run_git(["rev-parse", "--show-toplevel"]).stdout.strip() == os.fspath(repo)
