# numaplace: two commands on a fresh machine.
#   make run   installs what it needs into this checkout (.venv, the built extension) and
#              writes report/ with `numaplace reproduce`.
#   make test  runs every test: Rust unit, property and integration tests, then pytest
#              (including libnumaplace's real-kernel tests in a 4-node qemu VM, which
#              vm/setup.sh installs, the report's check in headless Chromium, which
#              tools/browser-setup.sh installs, and `numaplace record` on OpenMP programs, with
#              clang and libomp that tools/record-setup.sh installs; each skips with the reason
#              when it cannot).
#
# Progress: every step first prints one `numaplace: ...` line saying what it does and how long
# it took on a 2-core machine (README.md, "How long it takes"). Cargo's own progress shows when
# stderr is a terminal; in a log (CI) cargo is quiet and those lines are the progress.
# `make QUIET=` shows cargo's output in a log too; `make QUIET=--quiet` hides it on a terminal.
#
# The clock: each step of `make test` (and the set-up steps it shares with `make run`) ends with
# one line `numaplace: <step> took N s`, also when it fails, and `make test` ends with its total;
# when $NUMAPLACE_CLOCK_LOG names a file, those lines are appended to it too (.ci/run prints them
# all again at the end). pytest runs on both cores (pytest-xdist, -n $(PYTEST_WORKERS); conftest.py
# groups the tests that share a resource) and lists its 25 slowest tests.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
TEST_DEPS := $(VENV)/.test-deps-installed
EXT    := $(VENV)/.ext-built
EXT_COMPILED := $(VENV)/.ext-compiled
MATURIN := $(VENV)/.maturin-installed
RUST_SOURCES := $(shell find crates machines -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml pyproject.toml
QUIET  ?= $(shell test -t 2 || echo --quiet)
# The crates of `make test`'s Rust tests (the Python extension's crate is tested through pytest).
RUST_TEST_CRATES := -p numaplace-model -p numaplace-outfile -p numaplace-sim -p numaplace-runtime -p numaplace-record
# pip, run by maturin to check the project's dependencies (installed before by $(DEPS)), prints
# one "Requirement already satisfied" line per package unless told to be quiet.
PIP_ENV := PIP_QUIET=1 PIP_DISABLE_PIP_VERSION_CHECK=1

LIB    := target/release/libnumaplace.so

# pytest's workers (`make test PYTEST_WORKERS=0` runs it in one process, as before xdist).
PYTEST_WORKERS ?= 2
PYTEST_ARGS ?= $(strip -q -rs --durations=25 $(if $(filter-out 0,$(PYTEST_WORKERS)),-n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder))

# $(call timed,STEP,COMMAND): prints COMMAND (as make would), runs it (a `;`-list stops at its
# first failure), then prints `numaplace: STEP took N s` (and appends it to $NUMAPLACE_CLOCK_LOG
# if set), keeping COMMAND's exit status. STEP and COMMAND must not contain a comma: put such a
# command in a variable. Use it as `@$(call timed,...)`.
timed = printf '%s\n' '$(subst ','\'',$(2))'; t0=$$(date +%s); ( set -e; $(2) ); rc=$$?; \
	line="numaplace: $(1) took $$(( $$(date +%s) - t0 )) s"; echo "$$line"; \
	if [ -n "$${NUMAPLACE_CLOCK_LOG:-}" ]; then echo "$$line" >> "$$NUMAPLACE_CLOCK_LOG"; fi; exit $$rc
# When this make started: `make test` ends with its total.
CLOCK_START := $(shell date +%s)

.PHONY: run test rust-test py-test test-libs bench clean lib libs vm-setup browser-setup record-setup record-lib notebook

# The Python dependencies (pip, mostly waiting on downloads and unpacking) and the extension
# (cargo, on both cores) at the same time, once maturin is in; then the extension is installed.
# libnumaplace and the recorder's converter are not built here: `numaplace run` and `numaplace
# record` have cargo build them the first time they need them (python/numaplace/checkout.py), and
# `make libs` builds both ahead.
run:
	@$(MAKE) --no-print-directory -j2 $(DEPS) $(EXT_COMPILED)
	@$(MAKE) --no-print-directory $(EXT)
	@echo "numaplace: running the papers' experiments (numaplace reproduce --out report; about 2 min)..."
	$(VENV)/bin/numaplace reproduce --out report
	@echo "numaplace: done. Open report/index.html; the command line is $(VENV)/bin/numaplace (README.md, Quick start)."

# The notebook tour (examples/tour.ipynb) in Jupyter: what `make run` installs, then Jupyter
# itself (requirements-notebook.txt; neither `make run` nor `make test` needs it).
NOTEBOOK_DEPS := $(VENV)/.notebook-installed
notebook: $(NOTEBOOK_DEPS)
	@$(MAKE) --no-print-directory $(EXT)
	@echo "numaplace: opening examples/tour.ipynb in Jupyter (Ctrl-C stops it; add NOTEBOOK_ARGS=--no-browser on a remote machine)..."
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) $(NOTEBOOK_ARGS) examples/tour.ipynb

$(NOTEBOOK_DEPS): requirements-notebook.txt $(TEST_DEPS)
	@echo "numaplace: installing Jupyter into $(VENV) (requirements-notebook.txt; about a minute the first time)..."
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-notebook.txt
	@touch $@

# The Python dependencies, the tests' included (pip), beside the Rust tests' build, as `make run`
# installs its own beside the extension's; then pytest.
test:
	@$(MAKE) --no-print-directory -j2 $(TEST_DEPS) rust-test
	@$(MAKE) --no-print-directory py-test
	@line="numaplace: make test took $$(( $$(date +%s) - $(CLOCK_START) )) s in all"; echo "$$line"; \
	if [ -n "$${NUMAPLACE_CLOCK_LOG:-}" ]; then echo "$$line" >> "$$NUMAPLACE_CLOCK_LOG"; fi

# --no-compile: no bytecode for every module of every package at install time (Python writes it
# for the modules it imports, when it first imports them). Measured into a fresh venv from pip's
# cache on the idle two-core machine (2026-11-28): 33 s (27 s of CPU) where compiling took 59 s
# (52 s), CPU that the Rust build beside it gets instead.
$(DEPS): requirements.txt $(MATURIN)
	@echo "numaplace: installing the Python dependencies into $(VENV) (requirements.txt; about 30 s the first time)..."
	@$(call timed,the Python dependencies,$(PY) -m pip install --quiet --no-compile --disable-pip-version-check -r requirements.txt)
	touch $@

# What only the tests need (pytest, hypothesis, the notebook's kernel, dask): `make run` does not
# install it, so that its pip leaves the extension's build more of the two cores.
$(TEST_DEPS): requirements-test.txt $(DEPS)
	@echo "numaplace: installing the tests' Python dependencies into $(VENV) (requirements-test.txt; about 30 s the first time)..."
	@$(call timed,the tests' Python dependencies,$(PY) -m pip install --quiet --no-compile --disable-pip-version-check -r requirements-test.txt)
	touch $@

# maturin alone first (one wheel, seconds), so that the extension compiles while pip installs
# the other dependencies: `make run`'s set-up is then the longer of the two, not their sum.
$(MATURIN): requirements.txt
	@echo "numaplace: creating $(VENV) and installing maturin, the extension's builder (seconds)..."
	@$(call timed,maturin,test -x $(PY) || $(PYTHON) -m venv $(VENV); $(PY) -m pip install --quiet --no-compile --disable-pip-version-check "$$(grep '^maturin' requirements.txt)")
	touch $@

# The extension, compiled in release mode into python/numaplace/ (maturin's --skip-install: no
# pip, so it can run beside $(DEPS)); then installed into the venv (editable: python/ is live),
# which finds cargo's build fresh.
MATURIN_ENV := $(PIP_ENV) VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(VENV)/bin:$$PATH
$(EXT_COMPILED): $(MATURIN) $(RUST_SOURCES)
	@echo "numaplace: building the Rust extension (release; about 70 s on 2 cores the first time, seconds after a small change)..."
	@$(call timed,the Rust extension,$(MATURIN_ENV) $(VENV)/bin/maturin develop --release --skip-install $(QUIET))
	touch $@

$(EXT): $(DEPS) $(EXT_COMPILED)
	@echo "numaplace: installing numaplace into $(VENV) (editable; seconds)..."
	@$(call timed,installing numaplace,$(MATURIN_ENV) $(VENV)/bin/maturin develop --release $(QUIET))
	touch $@

# The test binaries are built first (quiet in a log), then run with cargo naming each one
# ("Running unittests src/lib.rs (target/tests/deps/numaplace_model-...)") and one dot a test.
rust-test:
	@echo "numaplace: building the Rust tests (release code without LTO, Cargo.toml profile.tests; about 2.5 min on 2 idle cores the first time)..."
	@$(call timed,building the Rust tests,cargo test --profile tests $(QUIET) --no-run $(RUST_TEST_CRATES))
	@echo "numaplace: running the Rust tests (unit, property and integration; seconds)..."
	@$(call timed,the Rust tests,cargo test --profile tests $(RUST_TEST_CRATES) -- --quiet)

# libnumaplace (shared and static) and its header, include/numaplace.h (committed).
lib:
	@echo "numaplace: building libnumaplace (release; about 20 s the first time, a second when up to date)..."
	@$(call timed,libnumaplace,cargo build --release $(QUIET) -p numaplace-runtime)

# The three set-ups below: a failure only makes their tests skip (in a variable: commas).
VM_SETUP      = bash vm/setup.sh || echo "numaplace: the VM tests will be skipped (vm/setup.sh failed, see above)"
BROWSER_SETUP = bash tools/browser-setup.sh || echo "numaplace: the browser test will be skipped (tools/browser-setup.sh failed, see above)"
RECORD_SETUP  = bash tools/record-setup.sh || echo "numaplace: the recorder's tests will be skipped (tools/record-setup.sh failed, see above)"

# qemu and a Debian kernel for the real-kernel tests; a failure only makes those tests skip.
vm-setup:
	@echo "numaplace: checking qemu and the VM's kernel for the real-kernel tests (vm/setup.sh; apt-get and a download the first time)..."
	@$(call timed,vm-setup,$(VM_SETUP))

# Headless Chromium for the report's browser test; a failure only makes that test skip.
browser-setup:
	@echo "numaplace: checking headless Chromium for the report's browser test (tools/browser-setup.sh; apt-get the first time)..."
	@$(call timed,browser-setup,$(BROWSER_SETUP))

# clang, libomp and GCC for `numaplace record`'s tests; a failure only makes those tests skip.
record-setup:
	@echo "numaplace: checking clang, libomp and gcc for the recorder's tests (tools/record-setup.sh; apt-get the first time)..."
	@$(call timed,record-setup,$(RECORD_SETUP))

# Both, in one cargo invocation (cargo builds what they share once, on both cores).
libs:
	@echo "numaplace: building libnumaplace and numaplace-record-convert (release; about 30 s the first time, a second when up to date)..."
	@$(call timed,libnumaplace and numaplace-record-convert,cargo build --release $(QUIET) -p numaplace-runtime -p numaplace-record)

# The recorder's converter (crate crates/record); the recording library itself is compiled by
# `numaplace cc` when first needed (target/record/).
record-lib:
	@echo "numaplace: building numaplace-record-convert (release; about 20 s the first time, a second when up to date)..."
	@$(call timed,numaplace-record-convert,cargo build --release $(QUIET) -p numaplace-record)

# make test's libnumaplace and converter: the Rust tests' build (Cargo.toml profile.tests) has
# compiled both already, so this takes seconds where `libs` (release, thin LTO: a cargo build of
# its own, since the extension's dependencies are compiled as LTO bitcode only) took 56 s in a
# fresh-clone CI. pytest runs them through $NUMAPLACE_LIB and $NUMAPLACE_RECORD_CONVERT: the same
# code as `make libs` builds, without link-time optimisation.
TEST_LIBS_ENV := NUMAPLACE_LIB=$(CURDIR)/target/tests/libnumaplace.so NUMAPLACE_RECORD_CONVERT=$(CURDIR)/target/tests/numaplace-record-convert
test-libs:
	@echo "numaplace: building libnumaplace and numaplace-record-convert for the tests (profile tests; seconds after the Rust tests' build)..."
	@$(call timed,the tests' libnumaplace and numaplace-record-convert,cargo build --profile tests $(QUIET) -p numaplace-runtime -p numaplace-record)

py-test: $(EXT) $(TEST_DEPS) test-libs vm-setup browser-setup record-setup
	@echo "numaplace: running pytest (API, CLI, sweeps, report, runtime natively and in the 4-node VM; several minutes)..."
	@$(call timed,pytest,$(TEST_LIBS_ENV) $(PY) -m pytest $(PYTEST_ARGS))

bench: $(EXT)
	$(VENV)/bin/numaplace bench
	$(VENV)/bin/numaplace bench --footprint

clean:
	rm -rf $(VENV) target report
