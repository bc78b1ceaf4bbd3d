# numaplace: two commands on a fresh machine.
#   make run   installs what it needs into this checkout (.venv, the built extension) and
#              writes report/ with `numaplace reproduce`.
#   make test  runs every test: Rust unit, property and integration tests, then pytest.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEPS   := $(VENV)/.deps-installed
EXT    := $(VENV)/.ext-built
RUST_SOURCES := $(shell find crates machines -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml pyproject.toml

.PHONY: run test rust-test py-test bench clean

run: $(EXT)
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
	cargo test --release --quiet -p numaplace-model -p numaplace-sim

py-test: $(EXT)
	$(PY) -m pytest -q

bench: $(EXT)
	$(VENV)/bin/numaplace bench
	$(VENV)/bin/numaplace bench --footprint

clean:
	rm -rf $(VENV) target report
