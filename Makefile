# Every target creates what it needs: a fresh machine with nothing installed works.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
NODE_STAMP := tests/agents/node_modules/.installed
EXT_STAMP := extension/node_modules/.installed
VSIX := extension/lazy-linux-x64.vsix
# a real VS Code (code-server) for tests/vscode, kept outside the repo (~320 MB)
CODE_SERVER_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/lazy-test/code-server
export LAZY_CODE_SERVER_DIR := $(abspath $(CODE_SERVER_DIR))
CODE_SERVER_STAMP := $(CODE_SERVER_DIR)/.installed-4.100.3
VSCODE_NODE_STAMP := tests/vscode/node_modules/.installed

.PHONY: run test check bench deps clean vsix vscode-deps test-vscode demo

$(STAMP): pyproject.toml
	@command -v python3 >/dev/null || { echo "python3 (>= 3.11) is required"; exit 1; }
	python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python >= 3.11 is required"; exit 1; }
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

deps: $(STAMP)

# Debian packages the tests drive (tmux for interactive Claude Code; docker.io and socat for the
# one-shot sandbox: tests/sandbox starts its own dockerd; postgresql for tests/team, which runs
# its own server from a temp dir); installed only when root.
sysdeps:
	@if ! command -v tmux >/dev/null || ! command -v rg >/dev/null || ! command -v dockerd >/dev/null \
	    || ! command -v socat >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq tmux ripgrep docker.io socat postgresql >/dev/null; \
	  else echo "tmux, ripgrep, docker.io, socat and postgresql are needed: apt-get install tmux ripgrep docker.io socat postgresql"; exit 1; fi; fi

$(EXT_STAMP): extension/package.json extension/package-lock.json
	cd extension && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(EXT_STAMP)

# the sidecar and what it imports, for Linux x86-64 and Python 3.11-3.13, carried by the .vsix
BUNDLE_STAMP := extension/bundled/.bundled
$(BUNDLE_STAMP): $(STAMP) pyproject.toml extension/scripts/bundle_sidecar.py $(shell find sidecar/lazy -name '*.py')
	$(PY) extension/scripts/bundle_sidecar.py . extension/bundled
	touch $@

# the extension as VS Code installs it
vsix $(VSIX): $(EXT_STAMP) $(BUNDLE_STAMP) $(shell find extension/src extension/media -type f 2>/dev/null) protocol/protocol.ts protocol/decode.ts
	cd extension && npm run package

$(CODE_SERVER_STAMP): tests/vscode/install.sh
	tests/vscode/install.sh $(CODE_SERVER_DIR)
	touch $@

$(VSCODE_NODE_STAMP): tests/vscode/package.json tests/vscode/package-lock.json
	cd tests/vscode && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@

vscode-deps: $(CODE_SERVER_STAMP) $(VSCODE_NODE_STAMP) $(VSIX)

$(NODE_STAMP): tests/agents/package.json
	cd tests/agents && npm install --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $(NODE_STAMP)

run: $(STAMP)
	$(VENV)/bin/lazy import-conversation --all-projects --yes
	$(VENV)/bin/lazy import-conversation --tool codex --all-projects --yes
	$(VENV)/bin/lazy import-conversation --tool opencode --all-projects --yes
	$(VENV)/bin/lazy conversations --all-projects
	@if command -v code >/dev/null; then $(MAKE) vsix && code --install-extension $(VSIX); \
	  else echo "(no 'code' command: make vsix builds $(VSIX) to install by hand)"; fi

# --no-cache: a moved module changes how unchanged files sort their imports, which a cache keyed on
# file contents misses (CI, with no cache, did not)
check: $(STAMP) $(EXT_STAMP)
	cd extension && npm run check
	$(VENV)/bin/ruff check --no-cache sidecar tests bench protocol
	$(VENV)/bin/ruff format --no-cache --check sidecar tests bench protocol
	$(VENV)/bin/mypy
	$(PY) protocol/generate.py --check

test: $(STAMP) sysdeps $(NODE_STAMP) vscode-deps check
	cd extension && npm test
	$(VENV)/bin/pytest -q

# a real VS Code in the browser with the extension and a demo history; prints its address
DEMO_PORT ?= 8080
demo: $(STAMP) $(CODE_SERVER_STAMP) $(VSIX)
	$(PY) tests/vscode/demo.py $(CODE_SERVER_DIR) $(VSIX) $(DEMO_PORT)

test-vscode: $(STAMP) sysdeps $(NODE_STAMP) vscode-deps
	$(VENV)/bin/pytest -q tests/vscode

bench: $(STAMP) sysdeps
	$(PY) -m bench.import

clean:
	rm -rf $(VENV) tests/agents/node_modules extension/node_modules extension/dist $(VSIX) extension/bundled \
	  tests/vscode/node_modules tests/vscode/out
