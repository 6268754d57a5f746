#!/usr/bin/env bash
# Installs scapy into .tools/interop (a Python virtual environment in the repository, ignored by
# git), only when it is missing: the third-party 802.1Qbb dissector and frame builder that
# tests/pfcmac_interop.rs runs through scripts/pfc_interop.py (about 45 MB installed).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

venv=.tools/interop
# The version the interop test was written against.
package="scapy==2.6.1"

# Written last: an interrupted install is redone.
if [ -f "$venv/.installed" ]; then
  exit 0
fi

make_venv "$venv" "scapy (about 45 MB)" "$package"
touch "$venv/.installed"
