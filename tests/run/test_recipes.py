"""Every recipe in the README's `simherdr run` section and every per-test reset one-liner in
CONTROL.md is run here, as written, where its toolchain exists (a clear skip where not)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import forkserve
from tests.run import drop_kept_trace

ROOT = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)  # simherdr, python, pytest of this environment
#: What the recipes' projects install from the registries, prepared outside the repository by
#: `make recipe-deps` (.ci/run runs it): node_modules with vitest. The tests use no network.
RECIPE_CACHE = Path(
    os.environ.get("SIMHERDR_RECIPE_CACHE")
    or os.path.join(os.path.expanduser("~"), ".cache", "simherdr", "recipes")
)
NODE_MODULES = RECIPE_CACHE / "node" / "node_modules"
#: No registry is reached from a test: a recipe needing one fails instead of fetching.
OFFLINE = {
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "CARGO_NET_OFFLINE": "true",
    "npm_config_offline": "true",
}
#: The suite's pytest plugins (their entry point names) that no recipe uses.
NOT_A_RECIPES_PLUGIN = ("hypothesispytest", "xdist", "xdist.looponfail", "timeout", "syrupy")
#: The pytest the recipes run loads this environment's plugins as a user's would (simherdr's
#: own), but for the suite's tools no recipe uses: Hypothesis' (its terminal summary imports
#: all of Hypothesis: ~0.13 s of CPU per pytest run), xdist's, pytest-timeout's and syrupy's
#: (~40 ms more); a user's environment without them runs the recipes the same.
NESTED_PYTEST = {
    "PYTEST_ADDOPTS": " ".join(
        [os.environ.get("PYTEST_ADDOPTS", "")] + [f"-p no:{name}" for name in NOT_A_RECIPES_PLUGIN]
    ).strip()
}
RECIPE = re.compile(r"<!-- recipe (\w+): (\S+) -->\n```[\w-]*\n(.*?)```", re.S)


def recipes() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, path, body in RECIPE.findall((ROOT / "README.md").read_text()):
        out.setdefault(name, {})[path] = body
    return out


def run_recipe(name: str, tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    files = recipes()[name]
    for path, body in files.items():
        if path == "run":
            continue
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text() != body:  # a kept project keeps its mtimes
            write_whole(target, body)
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], **OFFLINE, **NESTED_PYTEST)
    return subprocess.run(
        ["sh", "-c", files["run"].strip()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_readme_has_every_recipe():
    r = recipes()
    assert {"pytest", "node", "vitest", "go", "cargo", "ci"} <= set(r)
    assert all("run" in files for name, files in r.items() if name != "ci")


def test_pytest_recipe(tmp_path):
    p = run_recipe("pytest", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 passed" in p.stdout


def test_the_pytest_recipe_fails_without_its_reset(tmp_path):
    """The autouse reset is what makes the second test see `w1` again."""
    r = recipes()["pytest"]
    (tmp_path / "test_client.py").write_text(r["test_client.py"])
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], **NESTED_PYTEST)
    p = subprocess.run(
        ["sh", "-c", r["run"].strip()], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert p.returncode == 1 and "1 failed, 1 passed" in p.stdout, p.stdout
    assert "simherdr run: the command failed (exit status 1)" in p.stderr
    drop_kept_trace(p.stderr)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_recipe(tmp_path):
    p = run_recipe("node", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "# pass 2" in p.stdout and "# fail 0" in p.stdout


@pytest.mark.skipif(shutil.which("npx") is None, reason="node's npx is not installed")
def test_vitest_recipe(tmp_path):
    if not (NODE_MODULES / ".bin" / "vitest").exists():
        pytest.skip(f"vitest is not installed in {NODE_MODULES}: `make recipe-deps` installs it")
    # the project's node_modules, as `npm install vitest` would leave it: each package linked
    # from the shared install, the directory the project's own (vitest keeps its cache there)
    modules = tmp_path / "node_modules"
    modules.mkdir()
    for entry in NODE_MODULES.iterdir():
        if entry.name not in (".vite", ".cache"):
            (modules / entry.name).symlink_to(entry)
    p = run_recipe("vitest", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed on this machine")
def test_go_recipe(tmp_path):
    p = run_recipe("go", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def _toolchain(*argv: str) -> str:
    return subprocess.run([*argv, "-vV"], capture_output=True, text=True, timeout=60).stdout


def write_whole(path: Path, text: str) -> None:
    """``path`` appears whole or not at all: a kept build directory is shared by every run on
    the machine (two suites at once read what the other writes)."""
    part = path.with_name(f".{path.name}.{os.getpid()}")
    part.write_text(text)
    os.replace(part, path)


def kept_build_dir(request, tmp_path: Path, what: str, *inputs: str) -> Path:
    """A directory for a build that depends on nothing but ``inputs`` (the sources, and Rust's
    toolchain's ``-vV``): in :data:`RECIPE_CACHE` beside the recipes' node_modules, named by
    their hash, so the compile happens once per content on the machine, as go's GOCACHE keeps
    the Go recipes' (`make recipe-deps` builds both; a fresh clone's suite pays only the runs:
    ~0.7 s of CPU less; the build talks to simherdr only when it runs); a fresh ``tmp_path``
    without pytest's cache (-p no:cacheprovider: a run that keeps nothing) or where
    :data:`RECIPE_CACHE` cannot be written. Cargo locks its build directory;
    :func:`write_whole` writes the sources and the built binary."""
    if not request.config.pluginmanager.hasplugin("cacheprovider"):
        return tmp_path
    import hashlib

    digest = hashlib.sha256("\0".join(inputs).encode()).hexdigest()[:16]
    kept = RECIPE_CACHE / what / digest
    try:
        kept.mkdir(parents=True, exist_ok=True)
    except OSError:  # a read-only HOME: built where the test runs, as without the cache
        return tmp_path
    return kept


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_cargo_recipe(request, tmp_path):
    files = recipes()["cargo"]
    project = kept_build_dir(
        request, tmp_path, "cargo", repr(sorted(files.items())), _toolchain("rustc")
    )
    project.mkdir(parents=True, exist_ok=True)
    p = run_recipe("cargo", project, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "1 passed" in p.stdout + p.stderr


def test_ci_job_runs_the_pytest_recipe(tmp_path):
    """The CI job's `simherdr run` step, in the pytest recipe's project."""
    job = recipes()["ci"][".github/workflows/herdr.yml"]
    steps = re.findall(r"^\s+- run: (simherdr run .*)$", job, re.M)
    assert len(steps) == 1, job
    r = recipes()["pytest"]
    for path in ("conftest.py", "test_client.py"):
        (tmp_path / path).write_text(r[path])
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"], **NESTED_PYTEST)
    p = subprocess.run(
        ["sh", "-c", steps[0]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "herdr-trace.jsonl").exists()  # the artifact the failure step uploads


# --- CONTROL.md's one-liners, inside `simherdr run` ---------------------------------------------

CONTROL = (ROOT / "CONTROL.md").read_text()


def one_liner(lang: str) -> str:
    block = re.search(rf"```{lang}\n(.*?)```", CONTROL, re.S)
    assert block, lang
    return block.group(1)


def in_run(script: str, tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``simherdr run -- sh -c SCRIPT``: forked (tests/forkserve.py: run's main in a process of
    its own, no Python start; the server and the script it starts are spawned as ever). The
    README's recipes above run their ``simherdr run`` line as written, through ``sh``."""
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ["PATH"])
    return forkserve.run(
        ["run", "--", "sh", "-c", script], env=env, cwd=str(tmp_path), timeout=timeout
    )


RESET_CHECK = (
    "herdr workspace create >/dev/null && herdr workspace create >/dev/null && {reset} && "
    "herdr workspace list | grep -o '\"workspace_id\"' | wc -l"
)


def test_shell_one_liners(tmp_path):
    lines = [
        line
        for line in one_liner("sh").splitlines()
        if line and not line.startswith("#") and ("socat" not in line or shutil.which("socat"))
        if " nc " not in line or shutil.which("nc")
    ]
    assert any(line.startswith("simherdr ctl") for line in lines)
    assert any(line.startswith("python3 -c") for line in lines)
    # one `simherdr run` for all of them: each reset follows two fresh workspaces and prints
    # its own count (a reset that fails stops the chain: fewer counts than one-liners)
    resets = [line.split("  #")[0].strip() for line in lines]
    script = " && ".join(RESET_CHECK.format(reset=reset + " >/dev/null") for reset in resets)
    p = in_run(script, tmp_path)
    assert p.returncode == 0, (p.stdout, p.stderr)
    counts = [c.strip() for c in p.stdout.splitlines()]
    assert counts == ["0"] * len(resets), list(zip(resets, counts, strict=False))


def test_python_one_liner(tmp_path):
    (tmp_path / "ctl.py").write_text(one_liner("python") + "\nprint(ctl('server.reset'))\n")
    p = in_run(RESET_CHECK.format(reset=f"{sys.executable} ctl.py >/dev/null"), tmp_path)
    assert p.returncode == 0 and p.stdout.strip() == "0", p.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_one_liner(tmp_path):
    (tmp_path / "ctl.js").write_text(
        one_liner("js") + "\nctl('server.reset').then((r) => process.exit(r.ok ? 0 : 1));\n"
    )
    p = in_run(RESET_CHECK.format(reset="node ctl.js"), tmp_path)
    assert p.returncode == 0 and p.stdout.strip() == "0", p.stderr


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed on this machine")
def test_go_one_liner(request, tmp_path):
    files = {
        "go.mod": "module ctl\n\ngo 1.21\n",
        "main.go": 'package main\n\nimport (\n\t"bufio"\n\t"fmt"\n\t"net"\n\t"os"\n)\n\n'
        + one_liner("go")
        + '\nfunc main() { fmt.Print(ctl("server.reset")) }\n',
    }
    # a kept directory: go run's own cache of the executable (go 1.24+) finds it again there
    # (a new directory each time: a link each run, ~0.25 -> ~0.1 s of CPU)
    project = kept_build_dir(request, tmp_path, "go-run", repr(sorted(files.items())))
    project.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if not (project / name).exists() or (project / name).read_text() != text:
            write_whole(project / name, text)
    p = in_run(RESET_CHECK.format(reset="go run . >/dev/null"), project)
    assert p.returncode == 0 and p.stdout.strip() == "0", p.stderr


@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_rust_one_liner(request, tmp_path):
    source = one_liner("rust") + '\nfn main() { print!("{}", ctl("server.reset")); }\n'
    build = kept_build_dir(request, tmp_path, "rustc", source, _toolchain("rustc"))
    if not (build / "ctl").exists():  # compiled once per source and toolchain
        build.mkdir(parents=True, exist_ok=True)
        write_whole(build / "ctl.rs", source)
        part = f"ctl.new.{os.getpid()}"  # another run may compile beside this one
        built = subprocess.run(
            ["rustc", "--edition", "2021", "-O", "ctl.rs", "-o", part],
            cwd=build,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert built.returncode == 0, built.stderr
        os.replace(build / part, build / "ctl")  # a kept binary is a whole one
    if build != tmp_path:
        shutil.copy2(build / "ctl", tmp_path / "ctl")
    p = in_run(RESET_CHECK.format(reset="./ctl >/dev/null"), tmp_path)
    assert p.returncode == 0 and p.stdout.strip() == "0", p.stderr
