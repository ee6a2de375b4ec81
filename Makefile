# One environment for everything, made by the project itself.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint demo bench fuzz clean env corpus recipe-deps

$(STAMP): pyproject.toml
	@echo "make: setting up $(VENV) (python venv, simherdr editable with its test and lint tools; about a minute) ..."
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev]'
	$(BIN)/python tools/static_editable.py  # the editable install as path lines: no import hook at every start
	@echo "make: $(VENV) is ready: commands in $(BIN) (simherdr, simherdr-open, simherdr-fresh-call)"
	touch $(STAMP)

env: $(STAMP)

# PYTHONDONTWRITEBYTECODE (set on some machines) would make every xdist worker recompile
# everything; the suite writes its bytecode cache.
# Three workers on two cores (TEST_WORKERS). The suite's waits (paced replays, real processes'
# starts, a CLI's timeout) are fewer than the waves before: most stand-in calls of the client and
# contract tests run in-process, the slow waiting runs go to a background job (tests/background.py).
# A fourth worker now fills about as much idle time as it costs: its collection (~1.7 s of CPU)
# and more processes contending for two cores. Fresh clones of the same commit (0063b91, fdc22ee),
# quiet, alternating, 2026-12-07 18:00-18:41, 9 pairs: -n 3 43.6-51.2 s (mean 47.8, median 47.2;
# CPU mean 82.4 s), -n 4 44.0-53.3 s (mean 48.4, median 46.4; CPU mean 88.9 s); -n 2 56-57 s.
# The same wall within this VM's noise, ~6.5 s less CPU: three (earlier waves also found 3 and 4
# equal on wall, 6 and 2 slower).
# `--dist load`: tests go out on demand, two at a time (tests/conftest.py sets --maxschedchunk
# 2), the slowest collected first (SLOW_FIRST there) and the waiting ones dealt out among the
# others (interleave_waits there), so none starts when the others are done.
TEST_WORKERS ?= 3
# tests/prewarm.py first: the bytecode, pytest's rewritten modules and Hypothesis' local
# constants, written once on both cores instead of by each worker (a fresh clone: ~5 s of CPU
# per worker saved, ~0.4 s more by the constants).
# The suite's temporary files on tmpfs (TEST_TMPDIR, passed as TMPDIR: pytest's tmp_path, the
# replayed git repositories and what git writes there, the servers' socket directories): on ext4
# every mkdir, create and unlink goes through the journal. A/B on the team machine (loaded, -n 2,
# the 1,940 tests of tests/{worktree,git,agents,versions,persist,plugins,stub}, alternating):
# task-clock 34.8 / 29.8 s with /tmp, 30.4 / 25.4 s with /dev/shm. Taken where /dev/shm is a
# writable directory with >= 4 GiB free (a run writes ~200 MB; pytest keeps the last three runs;
# a container's 64 MB /dev/shm is not used); a TMPDIR the caller set wins.
TEST_TMPDIR ?= $(or $(TMPDIR),$(shell d=/dev/shm; [ -d $$d ] && [ -w $$d ] && [ "$$(df -Pk $$d 2>/dev/null | awk 'NR==2 {print $$4}')" -ge 4194304 ] 2>/dev/null && echo $$d))
TEST_ENV = $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) env -u PYTHONDONTWRITEBYTECODE
test: $(STAMP)
	$(TEST_ENV) $(BIN)/python tests/prewarm.py
	$(TEST_ENV) $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist load -q

# What the README's recipes (tests/run/test_recipes.py) need, prepared once, outside the
# repository (the tests themselves reach no network): vitest's node_modules from npm; then the
# Go and Rust recipes built once (go's shared GOCACHE: ~27 s of CPU cold, stdlib's net, json,
# os/exec, testing; the Rust builds kept by content in RECIPE_CACHE, shared by every clone on
# the machine: a fresh clone's suite compiles nothing, ~0.7 s of CPU), so `make test` pays only
# their runs (~1-2 s each). A missing toolchain is skipped here as in the tests.
RECIPE_CACHE ?= $(or $(SIMHERDR_RECIPE_CACHE),$(HOME)/.cache/simherdr/recipes)
VITEST_VERSION := 3.2.4
recipe-deps: $(STAMP)
	@if command -v npm >/dev/null; then \
	  test -x "$(RECIPE_CACHE)/node/node_modules/.bin/vitest" \
	  && grep -q '"version": "$(VITEST_VERSION)"' "$(RECIPE_CACHE)/node/node_modules/vitest/package.json" \
	  || { mkdir -p "$(RECIPE_CACHE)/node" && npm install --prefix "$(RECIPE_CACHE)/node" --no-audit --no-fund --loglevel=error vitest@$(VITEST_VERSION); }; \
	else echo "make recipe-deps: npm not found: the vitest recipe will skip"; fi
	env -u PYTHONDONTWRITEBYTECODE SIMHERDR_RECIPE_CACHE="$(RECIPE_CACHE)" $(BIN)/python -m pytest -q -p no:xdist tests/run/test_recipes.py -k "go_ or cargo or rust"

# Style, the layer contracts ([tool.importlinter]) and the typed packages ([tool.mypy]).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy

demo: $(STAMP)
	$(BIN)/python -m simherdr demo

bench: $(STAMP)
	$(BIN)/python -m benchmarks

fuzz: $(STAMP)
	SIMHERDR_FUZZ_DEPTH=10 $(BIN)/python -m pytest -q -m hostile -n auto

# Re-record the client-suite corpora (tests/contract/corpus/<release>/, every release of
# simherdr/facts/releases/) after an intended behaviour change or a new release; `git diff`
# then shows what changed for clients.
corpus: $(STAMP)
	$(BIN)/python -m simherdr.contract.clientsuite --build-releases tests/contract/corpus

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
