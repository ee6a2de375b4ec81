# One environment for everything, made by the project itself.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test lint demo bench fuzz clean env corpus

$(STAMP): pyproject.toml
	@echo "make: setting up $(VENV) (python venv, simherdr editable with its test and lint tools; about a minute) ..."
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dev]'
	@echo "make: $(VENV) is ready: commands in $(BIN) (simherdr, simherdr-open, simherdr-fresh-call)"
	touch $(STAMP)

env: $(STAMP)

# PYTHONDONTWRITEBYTECODE (set on some machines) would make every xdist worker recompile
# everything; the suite writes its bytecode cache.
# Four workers on two cores: much of the suite waits on subprocesses and scaled clocks (measured
# on 2 cores, quiet: -n 2 192 s, -n 4 132 s, -n 6 135 s for 3,787 tests). `--dist load`: tests
# go out on demand, two at a time (tests/conftest.py sets --maxschedchunk 2), and the slowest
# are collected first (SLOW_FIRST there), so none starts when the others are done.
test: $(STAMP)
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n 4 --dist load -q

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
	$(BIN)/python -m pytest -q -m hostile -n auto

# Re-record the client-suite corpora (tests/contract/corpus/<release>/, every release of
# simherdr/facts/releases/) after an intended behaviour change or a new release; `git diff`
# then shows what changed for clients.
corpus: $(STAMP)
	$(BIN)/python -m simherdr.contract.clientsuite --build-releases tests/contract/corpus

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
