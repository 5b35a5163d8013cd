# Quickstart: `make train` runs the main job (vitou-ai train on its defaults), `make test`
# runs the tests. `make demo` replays the example hand histories and simulates random deals.
# Each creates .venv and installs the project on first use (re-run safe).
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: train demo test lint bench clean-venv

# editable_mode=compat: the install puts this folder on sys.path (a .pth path entry), so
# `import vitou_ai` finds the package wherever Python starts. The default mode's import hook
# loses to the clone folder itself when Python starts in its parent: a clone named vitou_ai
# was imported as an empty namespace package (tests/test_install.py).
$(STAMP): pyproject.toml Makefile
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e ".[test]" --config-settings editable_mode=compat
	touch $(STAMP)

train: $(STAMP)
	$(VENV)/bin/vitou-ai train

demo: $(STAMP)
	$(VENV)/bin/vitou-ai demo

lint: $(STAMP)
	$(VENV)/bin/ruff check vitou_ai tests benchmarks experiments

# The bounds-checked run goes first: a buffer overrun then fails as an IndexError naming the
# kernel, instead of corrupting the heap and aborting some later test of the main suite.
test: lint
	@echo "--- jitted buffers bounds-checked (NUMBA_BOUNDSCHECK=1, own numba cache): every profile's"
	@echo "    simulator, bots, tabular and abstract MCCFR, flat and public trees; solvers, simulator, bots"
	NUMBA_BOUNDSCHECK=1 $(VENV)/bin/python -m pytest -q tests/test_boundscheck.py tests/test_sizing.py \
		tests/test_mccfr.py tests/test_solvers.py tests/test_sim_batch.py tests/test_batch.py \
		tests/test_bots.py -k "not interpreted_bodies and not own_cache"
	@echo "--- kernel bodies as plain Python (NUMBA_DISABLE_JIT=1): golden histories, round trips"
	NUMBA_DISABLE_JIT=1 $(VENV)/bin/python -m pytest -q tests/test_golden.py tests/test_history_roundtrip.py tests/test_vint_golden.py tests/test_golden_family.py
	@echo "--- the whole suite"
	$(VENV)/bin/python -m pytest -q

bench: $(STAMP)
	$(VENV)/bin/python benchmarks/bench_kernel.py
	$(VENV)/bin/python benchmarks/bench_sim.py
	$(VENV)/bin/python benchmarks/bench_solvers.py

clean-venv:
	rm -rf $(VENV)

# The documentation site (mkdocs.yml, docs/): `make docs` builds it into site/ with
# --strict (a broken link or API reference fails); `.venv/bin/mkdocs serve` previews it.
.PHONY: docs
$(VENV)/.docs-stamp: $(STAMP)
	$(VENV)/bin/python -m pip install --quiet -e ".[docs]" --config-settings editable_mode=compat
	touch $@

docs: $(VENV)/.docs-stamp
	$(VENV)/bin/mkdocs build --strict
