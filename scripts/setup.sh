#!/usr/bin/env bash
# One-time set-up on a Debian machine: Chromium and redis-server (when missing), the npm dependencies, the build, and
# the tabwire command on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages still missing: Chromium (the embedded browser) and redis-server (the cluster's tests start one).
missing=()
chrome="${CHROME_PATH:-/usr/bin/chromium}"
[ -x "$chrome" ] || missing+=(chromium)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian's ${missing[*]} (nothing is downloaded from anywhere else)"
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo_cmd="sudo"; else
      echo "setup: not root and no sudo; install them yourself: apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
"$chrome" --version 2>/dev/null | head -n 1 || true
/usr/bin/redis-server --version 2>/dev/null | head -n 1 || true

# The bench's peers (playwright-core, @playwright/mcp) are pointed at Debian's Chromium: never fetch a browser of theirs.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
npm run build
bash scripts/link-cli.sh
echo "setup: done. Start the hub with: npm start (or tabwire serve)"
