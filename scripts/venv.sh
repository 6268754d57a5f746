# Sourced by the setup scripts that install tools from PyPI into a virtual environment of the
# repository (.tools/<name>, ignored by git).

# make_venv DIR WHAT PACKAGE...: a new virtual environment DIR with PACKAGEs installed (WHAT
# names them for the message), installing Debian's python3-venv first if it is missing. On a
# failure DIR is removed and the script exits 1. The caller writes DIR/.installed when done.
make_venv() {
  local venv=$1 what=$2
  shift 2
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "$what: Python's venv module is missing: apt-get install python3-venv (as root)" >&2
      exit 1
    fi
    echo "setup: installing python3-venv" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y --no-install-recommends python3-venv
  fi
  echo "setup: installing $what into $venv: $*" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"; then
    rm -rf "$venv"
    exit 1
  fi
}
