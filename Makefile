# The two commands of the README: `make run` and `make test`. Everything else is plumbing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# The demo's own address (`make run PORT=8101` serves on 8101): what seed_demo and issuer_demo
# print, the issuer's ISSUER_BASE_URL (the `aud` of client assertions, the base of cardholder
# links) and the base URL kept beside the demo requestor's keys. 0.0.0.0 listens everywhere but
# is no address to call: the URLs then say 127.0.0.1.
NETWORK_PORT ?= 8583
BASE_URL ?= http://$(if $(filter 0.0.0.0,$(HOST)),127.0.0.1,$(HOST)):$(PORT)

.PHONY: run test lint install install-dev migrate seed clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Stamp files: re-install only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@ $(VENV)/.installed

# checkov (the Kubernetes manifests' checks, tests/test_kubernetes.py) pins its own dependencies:
# a venv of its own, beside the project's.
CHECKOV_VENV ?= .venv-checkov
CHECKOV_VERSION = 3.3.30
$(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION):
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet "checkov==$(CHECKOV_VERSION)"
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev $(CHECKOV_VENV)/.installed-$(CHECKOV_VERSION)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# Keeps what exists: the same credentials, issuer keys and demo requestor on every run
# (`.venv/bin/python manage.py seed_demo --rotate` for new credentials).
seed: migrate
	$(BIN)/python manage.py seed_demo --base-url '$(BASE_URL)'
	$(BIN)/python manage.py issuer_demo --base-url '$(BASE_URL)'

# The demo pays over the ISO 8583 link: the network host (payments/connectors/network_host.py)
# runs beside the server on NETWORK_PORT, and stops with it.
run: seed
	@echo "Serving on $(BASE_URL)/  (admin: /admin/, API docs: /api/docs/)"
	@echo "The card network: iso8583://127.0.0.1:$(NETWORK_PORT) (manage.py network_host)"
	$(BIN)/python manage.py network_host --port $(NETWORK_PORT) & host=$$!; \
	trap 'kill $$host 2>/dev/null' EXIT; trap 'exit 130' INT TERM HUP; \
	ISSUER_BASE_URL='$(BASE_URL)' PAYMENTS_NETWORK_URL=iso8583://127.0.0.1:$(NETWORK_PORT) $(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite runs in parallel (pytest-xdist, one database per worker; docs/testing.md): one worker
# more than the CPUs, since tests wait on the servers, browsers and databases they drive (2 CPUs:
# 182 s with 3 workers, 213 s with 2, 214 s with 4). `make test PYTEST_WORKERS=0`: one process.
PYTEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')
# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE): else every
# xdist worker and every server a test starts compiles the sources again, and pytest rewrites
# the 445 test modules' asserts in every process (docs/testing.md).
test: install-dev
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) db.sqlite3 .pytest_cache
