# make demo   - run the companion with simulated hardware (headless-capable)
# make test   - run every test (installs what the tests need on a fresh machine)
# make bench  - write measured figures to docs/BENCHMARKS.md
# make lint   - ruff + mypy
# make pi-test - the installer in a booted Debian 12 with Raspberry Pi OS stand-ins (root; ~15 min; deploy/README.md)
# make train-vision - retrain the camera's hex reader (PyTorch; hours; see docs/VISION.md)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
# MicroPython's WebAssembly port for the firmware's checks (package.json; no lock file is kept)
NODE_STAMP := node_modules/.installed-stamp

.PHONY: demo test bench lint sysdeps clean train-vision pi-test

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

sysdeps:
	@bash scripts/ensure-sysdeps

demo: $(STAMP) sysdeps
	$(VENV)/bin/companion demo

$(NODE_STAMP): package.json | sysdeps
	npm install --no-audit --no-fund --no-package-lock --loglevel=error
	touch $(NODE_STAMP)

test: $(STAMP) sysdeps $(NODE_STAMP)
	$(PY) -m pytest -n auto --dist loadfile

bench: $(STAMP) sysdeps
	OPENBLAS_NUM_THREADS=1 $(PY) -m devtools.bench

train-vision: $(STAMP)
	$(PY) -m pip install -q -e '.[train]'
	PY=$(PY) scripts/train-hexnet

pi-test:
	nice -n 10 scripts/pi-test

lint: $(STAMP)
	$(VENV)/bin/ruff check companion vision devtools tests
	$(VENV)/bin/ruff format --check companion vision devtools tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) demo-out .pytest_cache .mypy_cache .ruff_cache node_modules
