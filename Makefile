# switchcraft: a thin wrapper over cargo and the hardware tools. `make help` lists the targets.
# Tool versions used here are recorded in docs/architecture.md (Debian 12: Verilator 5.006,
# yosys 0.23, nextpnr-ice40, icestorm, z3; Bitwuzla 0.10 from PyPI for the formal flow).

CARGO  ?= cargo
# cargo's own output directory, wherever CARGO_TARGET_DIR puts it.
SC      = $(or $(CARGO_TARGET_DIR),target)/release/switchcraft
# Blocks and presets come from the registry (src/blocks/mod.rs), asked at run time; `make x
# BLOCK=b` narrows a per-block target to one block.
BLOCKS  = $$($(SC) list --blocks)
PAIRS   = $$($(SC) list --presets)

.PHONY: formal help setup demo test rtl docs check-generated lint cosim soak fuzz waves bench clean build

# `make synth BLOCK=pfc` runs one block; default: every block. `TARGET=ecp5`: the ECP5 flow.
BLOCK ?= $(BLOCKS)
TARGET ?= ice40
.PHONY: synth loops ecp5-tools formal-tools fusesoc-tools interop-tools

help:
	@echo "make demo             generate every block's Verilog, co-simulate it against its model"
	@echo "make test             fmt and clippy gates (clippy builds the tests), then all tests (unit, equivalence, formal tiny, synthesis smoke, CLI, freshness, lint)"
	@echo "make rtl              regenerate rtl/<block>/ for every preset"
	@echo "make docs             regenerate the register and port tables of docs/blocks/<block>.md"
	@echo "make check-generated  fail if rtl/ is stale"
	@echo "make lint             verilator --lint-only -Wall on rtl/"
	@echo "make cosim            1e6-cycle co-simulation of every block's tiny and fpga presets"
	@echo "make soak             1e8 cycles of every preset under injected faults (about an hour; docs/reports/soak.md)"
	@echo "make fuzz             the config fuzzer with 1000 configs per preset (FUZZ_TRIALS=n; SWITCHCRAFT_SEED=n)"
	@echo "make waves            a short co-simulation with VCDs under target/waves/"
	@echo "make bench            throughput of model, Verilator, co-simulation, rust-hdl (docs/reports/bench.md)"
	@echo "make formal [BLOCK=b] BMC + k-induction of formal/<b>/<b>_props.sv (depth, k, config: the block's own)"
	@echo "make synth [BLOCK=b]  iCE40 HX8K synthesis, place and route (3 seeds), bitstream; Xilinx estimate (docs/reports/synth.md)"
	@echo "make synth TARGET=ecp5 [BLOCK=b]  ECP5-85F synthesis, out-of-context place and route (3 seeds)"
	@echo "make loops            each block's one-cycle loop alone on both devices, 9 seeds (docs/reports/loops.md)"
	@echo "make setup            install missing system tools (apt-get; needs root)"
	@echo "make ecp5-tools       install the ECP5 tools into .tools/ecp5 if missing (PyPI; about 300 MB)"
	@echo "make formal-tools     install the Bitwuzla SMT solver into .tools/formal if missing (PyPI; 3 MB)"
	@echo "make fusesoc-tools    install FuseSoC into .tools/fusesoc if missing (PyPI; about 60 MB)"
	@echo "make interop-tools    install scapy into .tools/interop if missing (PyPI; about 45 MB)"

setup:
	@scripts/setup.sh

ecp5-tools:
	@scripts/setup-ecp5.sh

formal-tools:
	@scripts/setup-formal.sh

fusesoc-tools:
	@scripts/setup-fusesoc.sh

interop-tools:
	@scripts/setup-interop.sh

build: setup
	$(CARGO) build --release --bin switchcraft

demo: build
	$(SC) demo --out target/demo

# Gates first: formatting (seconds), then clippy with warnings as errors, run as the compiler
# of the test build itself (scripts/run-tests.py --clippy: one build instead of a clippy check
# and a build), then every test (one of which places and routes PFC `tiny` on the ECP5, hence
# ecp5-tools; the formal tests prove with Bitwuzla, hence formal-tools; the FuseSoC test runs
# the .core files, hence fusesoc-tools; pfcmac's frames go through scapy's dissector, hence
# interop-tools). The test binaries run side by side, one per core (scripts/run-tests.py;
# `cargo test` runs them one after another): many wait on one single-threaded tool most of
# their time. TEST_JOBS=1 runs them in turn.
TEST_JOBS ?= $(shell nproc)
# The tests' Verilator models compile their per-cycle code at -O1, not -O3: a third less
# build time, for runs of a few hundred thousand cycles (sim/src/verilator.rs, `make_flags`).
TEST_OPT_FAST ?= -O1
CLIPPY_DRIVER ?= clippy-driver
test: setup ecp5-tools formal-tools fusesoc-tools interop-tools
	$(CARGO) fmt --all -- --check
	SWITCHCRAFT_OPT_FAST='$(TEST_OPT_FAST)' CARGO=$(CARGO) scripts/run-tests.py --jobs $(TEST_JOBS) \
	  --clippy $(CLIPPY_DRIVER)

rtl: build
	@for bp in $(PAIRS); do b=$${bp%%:*}; p=$${bp#*:}; \
	  $(SC) generate --block $$b --preset $$p --out rtl/$$b || exit 1; done

docs: build
	$(SC) docs

check-generated: setup
	$(CARGO) test --test generated_fresh generated_rtl_is_fresh

lint: build
	@for bp in $(PAIRS); do b=$${bp%%:*}; p=$${bp#*:}; \
	  i=$$(echo $${b}_$$p | tr -c 'A-Za-z0-9_\n' _); echo "lint $$b $$p"; \
	  verilator --lint-only -Wall --top-module $${i}_top rtl/$$b/$$i.vlt rtl/$$b/$$i.v || exit 1; \
	done

cosim: build
	@for b in $(BLOCKS); do for p in tiny fpga; do \
	  $(SC) cosim --block $$b --preset $$p --cycles 1000000 --seed 1 || exit 1; done; done

# Not in `make test` (which tries 60 configs per preset): the config fuzzer at depth.
FUZZ_TRIALS ?= 1000
fuzz: setup
	SWITCHCRAFT_FUZZ_TRIALS=$(FUZZ_TRIALS) $(CARGO) test --test config_fuzz

# Not in `make test`: every preset of every block co-simulated for SOAK_CYCLES cycles under
# `cosim --faults` (docs/robustness.md). The table replaces docs/reports/soak.md only when
# every run passed.
SOAK_CYCLES ?= 100000000
soak: build
	@out=docs/reports/soak.md; \
	{ echo "# Soak"; echo; \
	  echo "\`make soak\`: each preset co-simulated for $(SOAK_CYCLES) cycles of its random workload"; \
	  echo "under \`switchcraft cosim --faults --seed 1\` (docs/robustness.md); commit"; \
	  echo "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown), $$(date -u +%F), $$(nproc) cores."; \
	  echo; echo "| block | preset | result | faults injected |"; echo "|---|---|---|---|"; \
	} > $$out.partial; \
	for bp in $(PAIRS); do b=$${bp%%:*}; p=$${bp#*:}; echo "soak $$b $$p"; \
	  r=$$($(SC) cosim --block $$b --preset $$p --cycles $(SOAK_CYCLES) --seed 1 --faults) \
	    || { echo "$$r"; rm -f $$out.partial; exit 1; }; \
	  echo "$$r"; \
	  echo "| $$b | $$p | $$(echo "$$r" | head -1) | $$(echo "$$r" | sed -n 's/^faults injected: //p') |" \
	    >> $$out.partial; \
	done; mv $$out.partial $$out; echo "wrote $$out"

waves: build
	@mkdir -p target/waves
	@for b in $(BLOCKS); do \
	  $(SC) cosim --block $$b --preset tiny --cycles 2000 --seed 1 --vcd target/waves/$${b}_tiny.vcd || exit 1; \
	  echo "model:     gtkwave target/waves/$${b}_tiny.vcd rtl/$$b/$${b}_tiny.gtkw"; \
	  echo "Verilator: gtkwave target/waves/$${b}_tiny.rtl.vcd rtl/$$b/$${b}_tiny.rtl.gtkw"; done

bench: setup
	$(CARGO) bench --bench throughput

# Each block's formal settings (BMC depth, induction k, and the config proved: its tiny preset
# or formal/<b>/<b>_formal.toml) are its own (src/blocks/<b>.rs; docs/blocks/<b>.md says why).
formal: build formal-tools
	@for b in $(BLOCK); do \
	  if [ ! -f formal/$$b/$${b}_props.sv ]; then \
	    echo "formal: block $$b has no formal/$$b/$${b}_props.sv yet; skipped"; continue; fi; \
	  $(SC) formal --block $$b || exit 1; done

# Minutes: every preset of every block is synthesized, placed and routed 3 times, one seed after
# the other. Logs, netlists and bitstreams under target/synth/; results merged into
# docs/reports/synth.md and synth.json.
synth: build $(if $(filter ecp5,$(TARGET)),ecp5-tools)
	@for b in $(BLOCK); do \
	  $(SC) synth --target $(TARGET) --block $$b --seeds 3 --out target/synth --report docs/reports || exit 1; done

# About five minutes: the hand-written loop kernels of loops/ on the iCE40 and the ECP5, 9 seeds each
# (they take a second or two per seed, and their spread is what the bounds rest on).
loops: build ecp5-tools
	$(SC) synth --loops --seeds 9 --out target/synth --report docs/reports

clean:
	$(CARGO) clean
