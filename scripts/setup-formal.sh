#!/usr/bin/env bash
# Installs the formal flow's SMT solver into .tools/formal (a Python virtual environment in the
# repository, ignored by git), only when it is missing: Bitwuzla from PyPI (a 3 MB wheel), and
# .tools/formal/bin/bitwuzla, the program yosys-smtbmc starts for `-s bitwuzla`, which runs
# scripts/bitwuzla-smt2.py with that environment's Python. On these designs Bitwuzla proves
# in seconds what Debian's z3 4.8 took minutes for (docs/architecture.md, formal flow); z3
# stays available with `switchcraft formal --solver z3`.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.tools/formal
# The version the reported proof times were measured with.
package="bitwuzla==0.10.0"

# Written last: an interrupted install is redone.
if [ -f "$venv/.installed" ]; then
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "the formal tools need Python's venv module: apt-get install python3-venv (as root)" >&2
    exit 1
  fi
  echo "setup-formal: installing python3-venv" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y --no-install-recommends python3-venv
fi

echo "setup-formal: installing $package into $venv (3 MB)" >&2
rm -rf "$venv"
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "$package"; then
  rm -rf "$venv"
  exit 1
fi
# The launcher finds the driver from its own place: .tools/formal/bin -> the repository.
cat > "$venv/bin/bitwuzla" <<'LAUNCHER'
#!/bin/sh
here=$(dirname "$0")
exec "$here/python" "$here/../../../scripts/bitwuzla-smt2.py" "$@"
LAUNCHER
chmod +x "$venv/bin/bitwuzla"
touch "$venv/.installed"
