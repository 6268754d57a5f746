# Clock constraint for Xilinx Vivado. UNTESTED HERE: no Vivado on this machine; switchcraft's
# flow only runs yosys synth_xilinx (a synthesis-only estimate) and never reads this file.
# Board: none in particular. Part: any 7-series device (e.g. Artix-7 XC7A35T); pins are left
# to the user's own board constraints.
# Top module: <block>_<preset>_top (e.g. pfc_fpga_top); clock port clk, 100 MHz as in
# constraints/ice40-hx8k-ct256/clocks.py.

create_clock -name clk -period 10.000 [get_ports clk]
