#!/usr/bin/env bash
# Render the HTML report of a fresh run in headless Chromium and save a screenshot.
# Usage: scripts/check_report.sh [OUT.png]   (installs Debian's chromium when missing; needs root for that)
set -euo pipefail
out="${1:-report.png}"
work="$(mktemp -d)"
if ! command -v chromium >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
toolworlds run --db "sqlite:///$work/runs.db" --agent noisy --noise 0.3 >/dev/null
toolworlds report --db "sqlite:///$work/runs.db" --html "$work/report.html" >/dev/null
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/profile" --window-size=1000,1400 \
  --screenshot="$out" "file://$work/report.html" 2>/dev/null
echo "screenshot: $out"
