# Every target creates what it needs: a fresh machine with nothing installed works.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_STAMP := tests/agents/node_modules/.installed

.PHONY: run test check bench deps clean

$(STAMP): pyproject.toml
	@command -v python3 >/dev/null || { echo "python3 (>= 3.11) is required"; exit 1; }
	python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python >= 3.11 is required"; exit 1; }
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

deps: $(STAMP)

# Debian packages the tests drive (tmux for interactive Claude Code); installed only when root.
sysdeps:
	@if ! command -v tmux >/dev/null || ! command -v rg >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq tmux ripgrep >/dev/null; \
	  else echo "tmux and ripgrep are needed: apt-get install tmux ripgrep"; exit 1; fi; fi

$(NODE_STAMP): tests/agents/package.json
	cd tests/agents && npm install --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(NODE_STAMP)

run: $(STAMP)
	$(VENV)/bin/lazy import-conversation --all-projects --yes
	$(VENV)/bin/lazy import-conversation --tool codex --all-projects --yes
	$(VENV)/bin/lazy import-conversation --tool opencode --all-projects --yes
	$(VENV)/bin/lazy conversations --all-projects

check: $(STAMP)
	$(VENV)/bin/ruff check sidecar tests bench protocol
	$(VENV)/bin/ruff format --check sidecar tests bench protocol
	$(VENV)/bin/mypy
	$(PY) protocol/generate.py --check

test: $(STAMP) sysdeps $(NODE_STAMP) check
	$(VENV)/bin/pytest -q

bench: $(STAMP) sysdeps
	$(PY) bench/import.py

clean:
	rm -rf $(VENV) tests/agents/node_modules
