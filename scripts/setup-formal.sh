#!/usr/bin/env bash
# Installs the formal flow's SMT solver into .tools/formal (a Python virtual environment in the
# repository, ignored by git), only when it is missing: Bitwuzla from PyPI (a 3 MB wheel), and
# .tools/formal/bin/bitwuzla, the program yosys-smtbmc starts for `-s bitwuzla`, which runs
# scripts/bitwuzla-smt2.py with that environment's Python. On these designs Bitwuzla proves
# in seconds what Debian's z3 4.8 took minutes for (docs/architecture.md, formal flow); z3
# stays available with `switchcraft formal --solver z3`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh

venv=.tools/formal
# The version the reported proof times were measured with.
package="bitwuzla==0.10.0"

# Written last: an interrupted install is redone.
if [ -f "$venv/.installed" ]; then
  exit 0
fi

make_venv "$venv" "the formal flow's solver (3 MB)" "$package"
# The launcher finds the driver from its own place: .tools/formal/bin -> the repository.
cat > "$venv/bin/bitwuzla" <<'LAUNCHER'
#!/bin/sh
here=$(dirname "$0")
exec "$here/python" "$here/../../../scripts/bitwuzla-smt2.py" "$@"
LAUNCHER
chmod +x "$venv/bin/bitwuzla"
touch "$venv/.installed"
