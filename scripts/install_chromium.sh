#!/usr/bin/env bash
# Installs the headless browser the end-to-end web test drives (tests/e2e_web_test.ts): Debian's
# `chromium` and `chromium-driver`. Does nothing when /usr/bin/chromium is already there, so CI can
# call it on every run. Needs root, or sudo without a password.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium is already installed: $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "Cannot install chromium: run this script as root or install sudo" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends chromium chromium-driver fonts-dejavu-core

if [ ! -x /usr/bin/chromium ]; then
  echo "Cannot install chromium: /usr/bin/chromium is still missing after apt-get install" >&2
  exit 1
fi
echo "Installed $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
