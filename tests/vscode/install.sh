#!/usr/bin/env bash
# Install a real VS Code for the end-to-end tests: code-server 4.100.3 (= VS Code 1.100.3)
# on Node 20, from the npm registry alone, plus Debian's chromium to drive it.
#
#   tests/vscode/install.sh [DEST]     DEST defaults to $LAZY_CODE_SERVER_DIR
#                                      -> DEST/node_modules/.bin/code-server
#
# An in-repo copy of ../shared/recipes/install-code-server.sh. code-server's own postinstall
# fetches ripgrep from GitHub and prebuilt native modules from release pages, which this
# network does not reach; so the package is installed with --ignore-scripts and each native
# module is built from source against the Node headers in /usr/include/node.
# Idempotent: does nothing when DEST already holds a working code-server.
set -euo pipefail
dest=${1:-${LAZY_CODE_SERVER_DIR:?usage: install.sh DEST (or set LAZY_CODE_SERVER_DIR)}}
version=${CODE_SERVER_VERSION:-4.100.3}

# Debian packages: compilers and headers for the native modules, ripgrep, and the browser.
debs=(build-essential python3 pkg-config libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev ripgrep chromium)
missing=()
for p in "${debs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "install.sh: apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "install.sh: missing Debian packages (run as root or: apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

cs="$dest/node_modules/.bin/code-server"
# code-server writes a default config.yaml under XDG_CONFIG_HOME on any run: keep it in DEST
version_of() { XDG_CONFIG_HOME="$dest/.config" "$cs" --version 2>/dev/null | tail -1; }
if [ -x "$cs" ] && version_of | grep -q "^$version "; then
  echo "install.sh: code-server already in $dest ($(version_of))"
  exit 0
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "install.sh: code-server $version needs Node 20, found $(node --version)" >&2; exit 1; }

mkdir -p "$dest" && cd "$dest"
[ -f package.json ] || echo '{"private":true}' > package.json
npm install --no-audit --no-fund --ignore-scripts --loglevel=error "code-server@$version"
gyp() { (cd "$1" && shift && npx --yes node-gyp rebuild --nodedir=/usr "$@" >/dev/null); }
gyp node_modules/argon2 -- -Dmodule_name=argon2 -Dmodule_path=lib/binding/napi-v3 -Dnapi_build_version=3
a=node_modules/argon2/lib/binding/napi-v3
[ -f "$a/argon2.node" ] || { mkdir -p "$a" && cp node_modules/argon2/build/Release/argon2.node "$a/"; }
vs=node_modules/code-server/lib/vscode
(cd "$vs" && npm install --no-audit --no-fund --unsafe-perm --omit=dev --ignore-scripts --loglevel=error)
for m in kerberos node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid; do
  gyp "$vs/node_modules/$m"
done
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
cp "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"
ln -sfn node_modules "$vs/node_modules.asar"
(cd "$vs/bin/remote-cli" && ln -sfn code-linux.sh code-server)
(cd "$vs/bin/helpers" && ln -sfn browser-linux.sh browser.sh)
(cd "$vs/extensions" && npm install --no-audit --no-fund --unsafe-perm --omit=dev --ignore-scripts --loglevel=error)
echo "install.sh: installed $(version_of)"
version_of | grep -q "^$version " || { echo "install.sh: code-server does not run" >&2; exit 1; }
