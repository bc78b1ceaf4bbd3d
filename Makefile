# numaplace: two commands on a fresh machine.
#   make run   installs what it needs into this checkout (.venv, the built extension) and
#              writes report/ with `numaplace reproduce`.
#   make test  runs every test: Rust unit, property and integration tests, then pytest
#              (including libnumaplace's real-kernel tests in a 4-node qemu VM, which
#              vm/setup.sh installs; they skip with the reason when it cannot).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
EXT    := $(VENV)/.ext-built
RUST_SOURCES := $(shell find crates machines -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml pyproject.toml

LIB    := target/release/libnumaplace.so

.PHONY: run test rust-test py-test bench clean lib vm-setup

run: $(EXT) lib
	$(VENV)/bin/numaplace reproduce --out report

test: rust-test py-test

$(DEPS): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

# The extension, built in release mode and installed into the venv (editable: python/ is live).
$(EXT): $(DEPS) $(RUST_SOURCES)
	VIRTUAL_ENV=$(CURDIR)/$(VENV) PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/maturin develop --release --quiet
	touch $@

rust-test:
	cargo test --release --quiet -p numaplace-model -p numaplace-outfile -p numaplace-sim -p numaplace-runtime

# libnumaplace (shared and static) and its header, include/numaplace.h (committed).
lib:
	cargo build --release --quiet -p numaplace-runtime

# qemu and a Debian kernel for the real-kernel tests; a failure only makes those tests skip.
vm-setup:
	-bash vm/setup.sh || echo "numaplace: the VM tests will be skipped (vm/setup.sh failed, see above)"

py-test: $(EXT) lib vm-setup
	$(PY) -m pytest -q

bench: $(EXT)
	$(VENV)/bin/numaplace bench
	$(VENV)/bin/numaplace bench --footprint

clean:
	rm -rf $(VENV) target report
