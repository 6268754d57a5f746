#!/usr/bin/env bash
# Installs FuseSoC into .tools/fusesoc (a Python virtual environment in the repository, ignored
# by git), only when it is missing: fusesoc from PyPI with its edalize (about 60 MB installed).
# tests/fusesoc.rs runs the generated .core files through it (core list, Verilator lint).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

venv=.tools/fusesoc
# The version the .core files were checked with.
package="fusesoc==2.4.7"

# Written last: an interrupted install is redone.
if [ -f "$venv/.installed" ]; then
  exit 0
fi

make_venv "$venv" "FuseSoC (about 60 MB)" "$package"
touch "$venv/.installed"
