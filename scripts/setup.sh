#!/usr/bin/env bash
# Installs the system tools switchcraft needs, only those that are missing.
# Debian 12 packages: verilator (5.006), yosys (0.23, ships yosys-smtbmc), nextpnr-ice40,
# fpga-icestorm (icepack, icetime), z3 (the SMT solver yosys-smtbmc drives).
set -euo pipefail

# command -> Debian package that provides it
tools=(
  "verilator:verilator"
  "yosys:yosys"
  "yosys-smtbmc:yosys"
  "nextpnr-ice40:nextpnr-ice40"
  "icepack:fpga-icestorm"
  "z3:z3"
  "g++:g++"
  "make:make"
)

missing=()
for entry in "${tools[@]}"; do
  cmd=${entry%%:*}
  pkg=${entry##*:}
  if ! command -v "$cmd" >/dev/null 2>&1; then
    case " ${missing[*]-} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "switchcraft needs these Debian packages: ${missing[*]}" >&2
  echo "Run as root:  apt-get update && $cmd" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
