# paipu — the two commands of the quick start: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVE ?= 1
GAMES ?= 2000
SEED ?= 1
DEMO := build/demo
WAREHOUSE := $(DEMO)/warehouse

.PHONY: demo test test-python install kernel bench clean FORCE

# One stamp per extra: `make demo` on a fresh clone installs only the base dependencies (what the
# demo runs: no test tools, no dask, no browser, no chess), `make bench` adds the bench extra
# (python-chess, pyinstrument), `make test` the dev extra. An extra installs its own packages only,
# so the package and its kernel are built once, by the kernel's own rule below.
BASE := $(VENV)/.installed-base
DEV := $(VENV)/.installed-dev
BENCH := $(VENV)/.installed-bench
# Installs go through uv, which pip puts into the new venv first: it fetches and unpacks in parallel,
# the dependencies in seconds where pip takes a minute. Where uv cannot install or fetch (an index
# only pip is configured for), pip installs the same.
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check
UV := $(BIN)/uv pip install --quiet --python $(BIN)/python
INSTALL = { test -x $(BIN)/uv && $(UV) $(1); } || $(PIP) $(1)
SAY := @printf 'paipu: %s\n'
EXTRA = { test -x $(BIN)/uv && $(UV) -r pyproject.toml --extra $(1); } || $(BIN)/python -c "import subprocess, sys, tomllib; deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['$(1)']; sys.exit(subprocess.call([sys.executable, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', *deps]))"

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) uv || true

# The compiled kernel (setup.py: Cython, when a C compiler works; else pure Python, said in one line).
KERNEL := $(VENV)/.installed-kernel
KERNEL_SAY := $(BIN)/python -c "from replay import kernel; print('paipu', kernel.describe())"
# What the kernel build was made from, by content: make's times alone miss a source restored with
# an old mtime, a deleted extension, a lost manifest (replay/kernel.py runs those as Python).
KERNEL_SUM := build/kernel.sum
KERNEL_SUMS = mkdir -p build && { sha256sum $(KERNEL_SRC) replay/_kernel_build.json; ls replay/*.so replay/variants/*/*.so ingest/*.so; } 2>/dev/null
KERNEL_SRC := setup.py replay/kernel.py replay/kernel_modules.txt $(wildcard replay/*.pxd replay/variants/*/*.pxd) $(shell grep '^[a-z]' replay/kernel_modules.txt | tr . / | sed 's/$$/.py/')

$(BASE): pyproject.toml setup.py | $(VENV)/bin/python
	$(SAY) "installing the dependencies into $(VENV) (seconds through uv, a minute or two through pip)"
	export PAIPU_BUILD_KERNEL=0; $(call INSTALL,-e .)
	touch $@

$(DEV): pyproject.toml | $(BASE)
	$(SAY) "installing the test tools (the dev extra)"
	$(call EXTRA,dev)
	touch $@

$(BENCH): pyproject.toml | $(BASE)
	$(SAY) "installing the bench extra"
	$(call EXTRA,bench)
	touch $@

# A kernel module changed since the build: recompile what changed, in place (a stale module runs
# as pure Python meanwhile, never its old build).
$(KERNEL_SUM): FORCE
	@$(KERNEL_SUMS) > $@.new || true; if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(KERNEL): $(KERNEL_SRC) $(KERNEL_SUM) | $(BASE)
	$(SAY) "compiling the kernel (Cython; the modules that changed since the last build)"
	$(call INSTALL,"Cython>=3.0" "setuptools>=69")
	$(BIN)/python setup.py --quiet build_ext --inplace
	@$(KERNEL_SAY)
	@$(KERNEL_SUMS) > $(KERNEL_SUM) || true
	touch $@

FORCE:

install: $(DEV) $(KERNEL)

kernel: $(KERNEL)

# What the demo warehouse holds (dashboards/demo.py): GAMES 桂林字牌 games and VGAMES of every other
# variant (通城個子牌 at 4 and 3 seats), each variant at its own tables, times and players; a second
# guilin ruleset, the 2017 Guilin deals, the worked example; a disputed settlement and a tampered
# game per variant, a few rejected lines, one `paipu tune` experiment. validate exits 1 on the
# planted invalid games (2 would be a usage error).
VGAMES ?= 300

demo: $(BASE) $(KERNEL)
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	$(BIN)/python -m dashboards.demo --out $(DEMO) --games $(GAMES) --vgames $(VGAMES) --seed $(SEED)
	$(BIN)/paipu validate --quiet $(DEMO)/logs || test $$? -eq 1
	$(BIN)/paipu report --warehouse $(WAREHOUSE)
ifeq ($(SERVE),1)
	$(BIN)/paipu dashboard --warehouse $(WAREHOUSE)
endif

# Two processes (pytest-xdist), a test file per process: its module fixtures are built once. Files
# go out in collection order, the long ones first (tests/conftest.py), so both processes end together.
PYTEST := $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder

test: $(DEV) $(KERNEL)
	$(BIN)/ruff check replay ingest analytics dashboards paipu bench tests
	$(BIN)/mypy
	$(PYTEST)

# The same suite on the pure-Python reference engine (the compiled build is what `make test` runs).
test-python: $(DEV)
	PAIPU_KERNEL=python $(PYTEST)

bench: $(BENCH) $(KERNEL)
	$(BIN)/python -m bench.run

clean:
	rm -rf build $(VENV) replay/_kernel_build.json
	find replay -name '*.so' -delete
