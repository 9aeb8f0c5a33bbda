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

# The other seven variants, a few hundred games each (tongcheng_gezi at 4 and at 3 seats).
VGAMES ?= 300
OTHERS := zipai yuanjiang_guihuzi tongcheng_gezi shangdaren sanjing_huapai wujing_huapai shuangbiegan_huapai

demo: $(BASE)
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(BIN)/paipu simulate --variant guilin --games $(GAMES) --seed $(SEED) --bots heuristic --out $(DEMO)/guilin-sim.jsonl
	$(BIN)/paipu simulate --variant guilin --deals data/guilin-deals-2017.jsonl --seed $(SEED) --bots heuristic --out $(DEMO)/guilin-2017-deals.jsonl
	for v in $(OTHERS); do $(BIN)/paipu simulate --variant $$v --games $(VGAMES) --seed $(SEED) --out $(DEMO)/$$v-sim.jsonl || exit 1; done
	$(BIN)/paipu simulate --variant tongcheng_gezi --rules players=3 --games $(VGAMES) --seed $(SEED) --out $(DEMO)/tongcheng_gezi-3p-sim.jsonl
	$(BIN)/paipu validate --quiet $(DEMO)/*.jsonl data/guilin-short.jsonl
	$(BIN)/paipu ingest $(DEMO)/*.jsonl data/guilin-short.jsonl --warehouse $(WAREHOUSE)
	$(BIN)/paipu report --warehouse $(WAREHOUSE)
ifeq ($(SERVE),1)
	$(BIN)/paipu dashboard --warehouse $(WAREHOUSE)
endif

test: install
	$(BIN)/python -m pytest

bench: $(BENCH)
	$(BIN)/python -m bench.run

clean:
	rm -rf build $(VENV)
