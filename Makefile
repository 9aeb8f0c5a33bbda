# paipu — the two commands of the quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVE ?= 1
GAMES ?= 2000
SEED ?= 1
DEMO := build/demo
WAREHOUSE := $(DEMO)/warehouse

.PHONY: demo test install bench clean

# One stamp per extra: `make demo` on a fresh clone installs only the base dependencies (what the
# demo runs: no test tools, no dask, no browser, no chess), `make bench` adds the bench extra
# (python-chess, pyinstrument), `make test` the dev extra.
BASE := $(VENV)/.installed-base
DEV := $(VENV)/.installed-dev
BENCH := $(VENV)/.installed-bench
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(BASE): pyproject.toml | $(VENV)/bin/python
	$(PIP) -e .
	touch $@

$(DEV): pyproject.toml | $(VENV)/bin/python
	$(PIP) -e '.[dev]'
	touch $@ $(BASE)

$(BENCH): pyproject.toml | $(VENV)/bin/python
	$(PIP) -e '.[bench]'
	touch $@ $(BASE)

install: $(DEV)

# What the demo warehouse holds (dashboards/demo.py): GAMES 桂林字牌 games and VGAMES of every other
# variant (通城個子牌 at 4 and 3 seats), each variant at its own tables, times and players; a second
# guilin ruleset, the 2017 Guilin deals, the worked example; a disputed settlement and a tampered
# game per variant, a few rejected lines, one `paipu tune` experiment. validate exits 1 on the
# planted invalid games (2 would be a usage error).
VGAMES ?= 300

demo: $(BASE)
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(BIN)/python -m dashboards.demo --out $(DEMO) --games $(GAMES) --vgames $(VGAMES) --seed $(SEED)
	$(BIN)/paipu validate --quiet $(DEMO)/logs || test $$? -eq 1
	$(BIN)/paipu report --warehouse $(WAREHOUSE)
ifeq ($(SERVE),1)
	$(BIN)/paipu dashboard --warehouse $(WAREHOUSE)
endif

# Two processes (pytest-xdist), a test file per process: its module fixtures are built once.
test: install
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(BENCH)
	$(BIN)/python -m bench.run

clean:
	rm -rf build $(VENV)
