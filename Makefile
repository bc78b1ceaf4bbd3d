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

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
EXT    := $(VENV)/.ext-built
RUST_SOURCES := $(shell find crates machines -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml pyproject.toml
QUIET  ?= $(shell test -t 2 || echo --quiet)
# The crates of `make test`'s Rust tests (the Python extension's crate is tested through pytest).
RUST_TEST_CRATES := -p numaplace-model -p numaplace-outfile -p numaplace-sim -p numaplace-runtime -p numaplace-record
# pip, run by maturin to check the project's dependencies (installed before by $(DEPS)), prints
# one "Requirement already satisfied" line per package unless told to be quiet.
PIP_ENV := PIP_QUIET=1 PIP_DISABLE_PIP_VERSION_CHECK=1

LIB    := target/release/libnumaplace.so

.PHONY: run test rust-test py-test bench clean lib vm-setup browser-setup record-setup record-lib

run: $(EXT) lib record-lib
	@echo "numaplace: running the papers' experiments (numaplace reproduce --out report; about 5 min)..."
	$(VENV)/bin/numaplace reproduce --out report
	@echo "numaplace: done. Open report/index.html; the command line is $(VENV)/bin/numaplace (README.md, Quick start)."

test: rust-test py-test

$(DEPS): requirements.txt
	@echo "numaplace: installing the Python dependencies into $(VENV) (requirements.txt; about 30 s the first time)..."
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# The extension, built in release mode and installed into the venv (editable: python/ is live).
$(EXT): $(DEPS) $(RUST_SOURCES)
	@echo "numaplace: building the Rust extension (release; about 40 s on 2 cores the first time, seconds after a small change)..."
	$(PIP_ENV) VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/maturin develop --release $(QUIET)
	touch $@

# The test binaries are built first (quiet in a log), then run with cargo naming each one
# ("Running unittests src/lib.rs (target/release/deps/numaplace_model-...)") and one dot a test.
rust-test:
	@echo "numaplace: building the Rust tests (release; about 3 min on 2 idle cores the first time)..."
	cargo test --release $(QUIET) --no-run $(RUST_TEST_CRATES)
	@echo "numaplace: running the Rust tests (unit, property and integration; seconds)..."
	cargo test --release $(RUST_TEST_CRATES) -- --quiet

# libnumaplace (shared and static) and its header, include/numaplace.h (committed).
lib:
	@echo "numaplace: building libnumaplace (release; about 20 s the first time, a second when up to date)..."
	cargo build --release $(QUIET) -p numaplace-runtime

# qemu and a Debian kernel for the real-kernel tests; a failure only makes those tests skip.
vm-setup:
	@echo "numaplace: checking qemu and the VM's kernel for the real-kernel tests (vm/setup.sh; apt-get and a download the first time)..."
	-bash vm/setup.sh || echo "numaplace: the VM tests will be skipped (vm/setup.sh failed, see above)"

# Headless Chromium for the report's browser test; a failure only makes that test skip.
browser-setup:
	@echo "numaplace: checking headless Chromium for the report's browser test (tools/browser-setup.sh; apt-get the first time)..."
	-bash tools/browser-setup.sh || echo "numaplace: the browser test will be skipped (tools/browser-setup.sh failed, see above)"

# clang, libomp and GCC for `numaplace record`'s tests; a failure only makes those tests skip.
record-setup:
	@echo "numaplace: checking clang, libomp and gcc for the recorder's tests (tools/record-setup.sh; apt-get the first time)..."
	-bash tools/record-setup.sh || echo "numaplace: the recorder's tests will be skipped (tools/record-setup.sh failed, see above)"

# The recorder's converter (crate crates/record); the recording library itself is compiled by
# `numaplace cc` when first needed (target/record/).
record-lib:
	@echo "numaplace: building numaplace-record-convert (release; about 20 s the first time, a second when up to date)..."
	cargo build --release $(QUIET) -p numaplace-record

py-test: $(EXT) lib record-lib vm-setup browser-setup record-setup
	@echo "numaplace: running pytest (API, CLI, sweeps, report, runtime natively and in the 4-node VM; several minutes)..."
	$(PY) -m pytest -q -rs

bench: $(EXT)
	$(VENV)/bin/numaplace bench
	$(VENV)/bin/numaplace bench --footprint

clean:
	rm -rf $(VENV) target report
