// Formal properties of the PFC block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=pfc`). The flow reads the exported rtl/pfc/<instance>.v and this file with
// `read_verilog -formal` and defines the macros below from the instance's config and register
// map:
//   SC_TOP        top module, e.g. pfc_tiny_top
//   SC_PB, SC_QB  widths of the port and priority fields of the event buses
//   SC_LB         width of the length field
//   SC_PORTS      number of ports
//   SC_PRIOS      number of priorities
//   SC_A_<REG>    word index of register <REG> (ID, XOFF, XON, MAX, QUANTA, REFRESH, ERR)
//   SC_W_OCC      occupancy width in bits
//   SC_ID_WORD    reset value of the ID register
// Probes: a wire marked `// probe: <path>` is connected by the flow, after `flatten`, to the
// internal net <path> of the design under test (yosys cannot read hierarchical references).
// The paths are rust-hdl's names in the core, the same for every preset.
//
// Cycle conventions (docs/blocks/pfc.md): events sampled at edge n have their occupancy results
// in cycle n+3 (the select stage; `enq_drop` after edge n+4, the write stage at edge n+4) and
// their XOFF bits at edge n+6 (`xoff_*`/`xon_*` after it), all with the MAX and thresholds of
// edge n; `csr_rdata` after edge n is the register addressed at edge n as it was before that
// edge; a CSR write at edge n is in the register after edge n.
//
// Assertions are named a_*, assumptions m_*. A mutant (`-DSC_MUTANT`) flips one assertion so
// the flow can be seen to fail.

module pfc_props (
    input wire clk,
    input wire rst,
    input wire enq_valid,
    input wire [`SC_PB-1:0] enq_port,
    input wire [`SC_QB-1:0] enq_prio,
    input wire [`SC_LB-1:0] enq_len,
    input wire deq_valid,
    input wire [`SC_PB-1:0] deq_port,
    input wire [`SC_QB-1:0] deq_prio,
    input wire [`SC_LB-1:0] deq_len,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam KB = `SC_PB + `SC_QB;   // key = {port, priority}
    localparam G = 1 << `SC_QB;        // keys (classes) per port
    localparam K = 1 << KB;
    localparam [31:0] OCC_MASK = (`SC_W_OCC >= 32) ? 32'hffff_ffff : ((32'd1 << `SC_W_OCC) - 1);

    // ---------------------------------------------------------------- the design under test
    wire enq_drop, xoff_valid, xon_valid, frame_valid;
    wire [`SC_PB-1:0] xoff_port, xon_port, frame_port;
    wire [`SC_QB-1:0] xoff_prio, xon_prio;
    wire [7:0] frame_class_enable, frame_pause;
    wire [15:0] frame_quanta;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .enq_valid(enq_valid), .enq_port(enq_port), .enq_prio(enq_prio), .enq_len(enq_len),
        .deq_valid(deq_valid), .deq_port(deq_port), .deq_prio(deq_prio), .deq_len(deq_len),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .enq_drop(enq_drop),
        .xoff_valid(xoff_valid), .xoff_port(xoff_port), .xoff_prio(xoff_prio),
        .xon_valid(xon_valid), .xon_port(xon_port), .xon_prio(xon_prio),
        .frame_valid(frame_valid), .frame_port(frame_port),
        .frame_class_enable(frame_class_enable), .frame_pause(frame_pause),
        .frame_quanta(frame_quanta), .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- probes
    (* keep *) wire [K-1:0] xoff_q;          // probe: dut.core.ingress.decision.state$q
    (* keep *) wire [K-1:0] xoff_d;          // probe: dut.core.ingress.decision.state$d
    // Registers of the CSR bank (crates/rtl/src/csr_bank.rs), named r_<register>.
    (* keep *) wire [`SC_W_OCC-1:0] r_xoff_q; // probe: dut.core.csr.r_xoff
    (* keep *) wire [`SC_W_OCC-1:0] r_xon_q;  // probe: dut.core.csr.r_xon
    (* keep *) wire [`SC_W_OCC-1:0] r_max_q;  // probe: dut.core.csr.r_max
    (* keep *) wire [15:0] r_quanta;         // probe: dut.core.csr.r_quanta
    (* keep *) wire [15:0] r_refresh;        // probe: dut.core.csr.r_refresh
    (* keep *) wire [1:0] r_err;             // probe: dut.core.csr.r_err
    wire [31:0] r_xoff = r_xoff_q;          // zero-extended
    wire [31:0] r_xon = r_xon_q;
    wire [31:0] r_max = r_max_q;
    // The occupancy's select stage: cycle n+3 for the events of edge n, whose MAX and XOFF are
    // the registers' values three cycles earlier (`prev3_r_max`, `prev3_r_xoff`).
    (* keep *) wire e_valid;                 // probe: dut.core.ingress.occ.b_e_valid$q
    (* keep *) wire d_valid;                 // probe: dut.core.ingress.occ.b_d_valid$q
    (* keep *) wire same_key;                // probe: dut.core.ingress.occ.b_same$q
    (* keep *) wire [31:0] e_b1;             // probe: dut.core.ingress.occ.e_b1
    (* keep *) wire e_drop;                  // probe: dut.core.ingress.occ.e_drop
    (* keep *) wire [31:0] d_b1;             // probe: dut.core.ingress.occ.d_b1
    (* keep *) wire d_underflow;             // probe: dut.core.ingress.occ.d_underflow
    (* keep *) wire [KB-1:0] e_key;          // probe: dut.core.ingress.occ.b_e_key$q
    (* keep *) wire [KB-1:0] d_key;          // probe: dut.core.ingress.occ.b_d_key$q
    // The occupancy's operand stage (cycle n+2 for the events of edge n): each event's operand,
    // its key's value after the events two edges older.
    (* keep *) wire [KB-1:0] a_e_key;        // probe: dut.core.ingress.occ.a_e_key$q
    (* keep *) wire [KB-1:0] a_d_key;        // probe: dut.core.ingress.occ.a_d_key$q
    (* keep *) wire [31:0] a_x_e;            // probe: dut.core.ingress.occ.a_x_e$q
    (* keep *) wire [31:0] a_x_d;            // probe: dut.core.ingress.occ.a_x_d$q
    // Each stage's events and same-key flag (the occupancy's input, read and operand stages,
    // the decision's comparison and update stages; the select stage's are above).
    (* keep *) wire i_e_valid;               // probe: dut.core.ingress.occ.i_e_valid$q
    (* keep *) wire i_d_valid;               // probe: dut.core.ingress.occ.i_d_valid$q
    (* keep *) wire i_same;                  // probe: dut.core.ingress.occ.i_same$q
    (* keep *) wire [KB-1:0] i_e_key;        // probe: dut.core.ingress.occ.i_e_key$q
    (* keep *) wire [KB-1:0] i_d_key;        // probe: dut.core.ingress.occ.i_d_key$q
    (* keep *) wire r_e_valid;               // probe: dut.core.ingress.occ.r_e_valid$q
    (* keep *) wire r_d_valid;               // probe: dut.core.ingress.occ.r_d_valid$q
    (* keep *) wire r_same;                  // probe: dut.core.ingress.occ.r_same$q
    (* keep *) wire [KB-1:0] r_e_key;        // probe: dut.core.ingress.occ.r_e_key$q
    (* keep *) wire [KB-1:0] r_d_key;        // probe: dut.core.ingress.occ.r_d_key$q
    (* keep *) wire a_e_valid;               // probe: dut.core.ingress.occ.a_e_valid$q
    (* keep *) wire a_d_valid;               // probe: dut.core.ingress.occ.a_d_valid$q
    (* keep *) wire a_same;                  // probe: dut.core.ingress.occ.a_same$q
    (* keep *) wire st_e_valid;              // probe: dut.core.ingress.decision.st_e_valid$q
    (* keep *) wire st_d_valid;              // probe: dut.core.ingress.decision.st_d_valid$q
    (* keep *) wire st_same;                 // probe: dut.core.ingress.decision.st_same$q
    (* keep *) wire cm_same;                 // probe: dut.core.ingress.decision.cm_same$q
    // The decision's comparison and update stages (crates/rtl/src/pfc/pause_decision.rs).
    (* keep *) wire [KB-1:0] st_e_key;       // probe: dut.core.ingress.decision.st_e_key$q
    (* keep *) wire [KB-1:0] st_d_key;       // probe: dut.core.ingress.decision.st_d_key$q
    (* keep *) wire cm_e_valid;              // probe: dut.core.ingress.decision.cm_e_valid$q
    (* keep *) wire cm_d_valid;              // probe: dut.core.ingress.decision.cm_d_valid$q
    (* keep *) wire [KB-1:0] cm_e_key;       // probe: dut.core.ingress.decision.cm_e_key$q
    (* keep *) wire [KB-1:0] cm_d_key;       // probe: dut.core.ingress.decision.cm_d_key$q
    (* keep *) wire cm_xo_e_old;             // probe: dut.core.ingress.decision.cm_xo_e_old$q
    (* keep *) wire cm_xo_d_old;             // probe: dut.core.ingress.decision.cm_xo_d_old$q
    (* keep *) wire st_fwd_ee;               // probe: dut.core.ingress.decision.st_fwd_ee$q
    (* keep *) wire st_fwd_ed;               // probe: dut.core.ingress.decision.st_fwd_ed$q
    (* keep *) wire st_fwd_de;               // probe: dut.core.ingress.decision.st_fwd_de$q
    (* keep *) wire st_fwd_dd;               // probe: dut.core.ingress.decision.st_fwd_dd$q
    // The results each edge writes (to the write stage, the RAMs' copy one edge later): the
    // enqueue's key with its result, and the dequeue's when the keys differ (a same-key pair
    // writes one combined result).
    wire e_we = e_valid;
    wire [KB-1:0] e_wa = e_key;
    wire [31:0] e_wd = e_b1;
    wire d_we = d_valid && !same_key;
    wire [KB-1:0] d_wa = d_key;
    wire [31:0] d_wd = d_b1;

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset (every BMC trace begins with rst = 1). Sound: the
    // contract only defines behaviour after a reset. Induction starts anywhere and needs none.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);

    // The previous cycle's values (yosys allows $past only in clocked blocks; these registers
    // say the same explicitly). `past_ok`: there was a previous cycle and it was not a reset.
    reg past_valid = 1'b0;
    reg prev_rst, prev_e_drop, prev_d_underflow, prev_csr_we;
    reg [5:0] prev_csr_addr;
    reg [31:0] prev_csr_wdata, prev_r_xoff, prev_r_xon, prev_r_max;
    // The MAX and XOFF of the events now in the occupancy's select stage.
    reg [31:0] prev2_r_xoff, prev3_r_xoff, prev2_r_max, prev3_r_max;
    reg [15:0] prev_r_quanta, prev_r_refresh;
    reg [1:0] prev_r_err;
    reg [K-1:0] prev_xoff_q;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        prev_rst <= rst;
        prev_e_drop <= e_drop;
        prev_d_underflow <= d_underflow;
        prev_csr_we <= csr_we;
        prev_csr_addr <= csr_addr;
        prev_csr_wdata <= csr_wdata;
        prev_r_xoff <= r_xoff;
        prev_r_xon <= r_xon;
        prev_r_max <= r_max;
        prev2_r_xoff <= prev_r_xoff;
        prev3_r_xoff <= prev2_r_xoff;
        prev2_r_max <= prev_r_max;
        prev3_r_max <= prev2_r_max;
        prev_r_quanta <= r_quanta;
        prev_r_refresh <= r_refresh;
        prev_r_err <= r_err;
        prev_xoff_q <= xoff_q;
    end
    wire past_ok = past_valid && !prev_rst;

    // ---------------------------------------------------------------- helpers
    wire [KB-1:0] xoff_key = {xoff_port, xoff_prio};
    wire [KB-1:0] xon_key = {xon_port, xon_prio};
    wire [K-1:0] rises = xoff_q & ~prev_xoff_q;
    wire [K-1:0] falls = ~xoff_q & prev_xoff_q;
    wire [K-1:0] one = {{(K - 1){1'b0}}, 1'b1};

    // ---------------------------------------------------------------- pause-request events
    // a_events_are_state_changes: an XOFF (XON) event is reported exactly when its (port,
    // priority) went from resume to pause (pause to resume) at the same edge, and every such
    // change is reported: no spurious events, no silent changes.
    always @(*) if (past_ok) begin
        a_events_are_state_changes: assert (rises == (xoff_valid ? one << xoff_key : {K{1'b0}})
                                         && falls == (xon_valid ? one << xon_key : {K{1'b0}}));
    end

    // a_xoff_only_after_threshold: a (port, priority) is in XOFF only if its occupancy was
    // written with a value >= the XOFF threshold of the event's edge, during this XOFF period or
    // in the two cycles before it began (the decision tests the write one edge after it and
    // sets the state one edge after that). `reached` is ghost state: per key, "such a write
    // happened in this XOFF period, or at one of the last two edges"; `wrote_high_q` is the
    // last edge's writes.
    reg [K-1:0] reached = {K{1'b0}};
    reg [K-1:0] wrote_high_q = {K{1'b0}};
    wire [K-1:0] wrote_high = ((e_we && e_wd >= prev3_r_xoff) ? one << e_wa : {K{1'b0}})
                            | ((d_we && d_wd >= prev3_r_xoff) ? one << d_wa : {K{1'b0}});
    always @(posedge clk) begin
        wrote_high_q <= rst ? {K{1'b0}} : wrote_high;
        reached <= rst ? {K{1'b0}} : (reached & xoff_d) | wrote_high_q | wrote_high;
    end
    always @(*) if (past_valid) a_xoff_only_after_threshold: assert ((xoff_q & ~reached) == 0);

    // ---------------------------------------------------------------- decision lookup
    // a_decision_lookup_is_state: the XOFF bits the update starts from, looked up a cycle early
    // with a bypass of the update then in progress, are the keys' bits now; the bypass flags
    // say which keys that update decided. Inductive invariants of the registered lookup.
    wire [K-1:0] cm_e_bit = xoff_q >> cm_e_key;
    wire [K-1:0] cm_d_bit = xoff_q >> cm_d_key;
    always @(*) begin
        if (cm_e_valid) a_decision_lookup_is_state_e: assert (cm_xo_e_old == cm_e_bit[0]);
        if (cm_d_valid) a_decision_lookup_is_state_d: assert (cm_xo_d_old == cm_d_bit[0]);
        a_decision_bypass_flags: assert (
            st_fwd_ee == (cm_e_valid && cm_e_key == st_e_key)
            && st_fwd_ed == (cm_d_valid && cm_d_key == st_e_key)
            && st_fwd_de == (cm_e_valid && cm_e_key == st_d_key)
            && st_fwd_dd == (cm_d_valid && cm_d_key == st_d_key));
    end

    // a_same_is_keys_*: at every stage from the occupancy's input to the decision's update, the
    // same-key flag says exactly that both events are valid and name one key (after a reset
    // the flag may stay with both events invalid). Inductive invariants that tie each stage's
    // flag to its keys, so that induction needs no more than the decision's own depth.
    `define SC_SAME_IS_KEYS(label, same, ev, dv, ek, dk) \
        label: assert ((same) ? ((ev) == (dv) && (ek) == (dk)) : !((ev) && (dv) && (ek) == (dk)));
    always @(*) begin
        `SC_SAME_IS_KEYS(a_same_is_keys_i, i_same, i_e_valid, i_d_valid, i_e_key, i_d_key)
        `SC_SAME_IS_KEYS(a_same_is_keys_r, r_same, r_e_valid, r_d_valid, r_e_key, r_d_key)
        `SC_SAME_IS_KEYS(a_same_is_keys_a, a_same, a_e_valid, a_d_valid, a_e_key, a_d_key)
        `SC_SAME_IS_KEYS(a_same_is_keys_b, same_key, e_valid, d_valid, e_key, d_key)
        `SC_SAME_IS_KEYS(a_same_is_keys_st, st_same, st_e_valid, st_d_valid, st_e_key, st_d_key)
        `SC_SAME_IS_KEYS(a_same_is_keys_cm, cm_same, cm_e_valid, cm_d_valid, cm_e_key, cm_d_key)
    end

    // ---------------------------------------------------------------- occupancy arithmetic
    // The RTL has no operand register for an event's own result: it applies its predecessor's
    // operations with its own to the key's value two events back (crates/rtl/src/pfc/
    // occupancy_pipeline.rs). So the tests against the operand are the sequential ones below;
    // these are the results' own bounds.
    always @(*) if (past_ok) begin
        // a_no_underflow: a dequeue that underflows clamps to 0 (and raises the flag, below);
        // a dequeue's result never passes the counter width.
        if (d_valid) a_no_underflow: assert ((!d_underflow || d_b1 == 0) && d_b1 <= OCC_MASK);
        // a_no_overflow: an accepted enqueue never passes the MAX of its edge.
        if (e_valid && !e_drop) a_no_overflow: assert (e_b1 <= prev3_r_max);
        // a_drop_only_when_valid: the flags belong to events.
        a_drop_only_when_valid: assert ((!e_drop || e_valid) && (!d_underflow || d_valid));
    end
    // a_drop_reported / a_underflow_flagged: the saturation events are visible.
    always @(*) if (past_ok) begin
`ifdef SC_MUTANT
        // The mutant claims no enqueue is ever dropped: must FAIL (an early output, so the
        // failing BMC is short: a drop shows DROP_LATENCY edges after its enqueue).
        a_drop_reported: assert (!enq_drop);
`else
        a_drop_reported: assert (enq_drop == prev_e_drop);
`endif
        if (prev_d_underflow) a_underflow_flagged: assert (r_err[0]);
    end

    // ---------------------------------------------------------------- the pipeline is the spec
    // a_occupancy_is_sequential / a_drop_is_sequential: the pipelined occupancy equals the
    // unpipelined specification on every key. `watch` is any key (the solver picks it); the
    // ghost `spec_b` is its occupancy updated on the events' own edge exactly as spec §2.3 says
    // (dequeue clamped at 0, then enqueue dropped above the MAX of that edge), with no pipeline,
    // forwarding or RAM. Three edges later the RTL's select stage has the watched key's result:
    // it must be the spec's, at every hazard distance the stimulus makes, and so must the drop
    // flag. BMC only: the RAM contents are not tied to `spec_b` in an arbitrary starting state,
    // so the property is not inductive.
    (* anyconst *) reg [KB-1:0] watch;
    wire e_on = enq_valid && enq_port < `SC_PORTS && enq_prio < `SC_PRIOS
             && {enq_port, enq_prio} == watch;
    wire d_on = deq_valid && deq_port < `SC_PORTS && deq_prio < `SC_PRIOS
             && {deq_port, deq_prio} == watch;
    wire [31:0] max_now = (csr_we && csr_addr == `SC_A_MAX) ? (csr_wdata & OCC_MASK) : r_max;
    reg [31:0] spec_b = 32'd0;
    reg [31:0] spec_b_1 = 32'd0, spec_b_2 = 32'd0, spec_b_3 = 32'd0, spec_b_4 = 32'd0;
    reg spec_drop = 1'b0, spec_drop_1 = 1'b0, spec_drop_2 = 1'b0, spec_drop_3 = 1'b0;
    wire [31:0] spec_after_deq = !d_on ? spec_b : (deq_len > spec_b ? 32'd0 : spec_b - deq_len);
    wire spec_over = e_on && {1'b0, spec_after_deq} + enq_len > {1'b0, max_now};
    wire [31:0] spec_after = (e_on && !spec_over) ? spec_after_deq + enq_len : spec_after_deq;
    // `settled`: the last four edges were out of reset, so the events in the select stage were
    // sampled after it.
    reg alive1 = 1'b0, alive2 = 1'b0, alive3 = 1'b0, settled = 1'b0;
    always @(posedge clk) begin
        spec_b <= rst ? 32'd0 : spec_after;
        spec_b_1 <= spec_b;
        spec_b_2 <= spec_b_1;
        spec_b_3 <= spec_b_2;
        spec_b_4 <= spec_b_3;
        spec_drop <= spec_over;
        spec_drop_1 <= spec_drop;
        spec_drop_2 <= spec_drop_1;
        spec_drop_3 <= spec_drop_2;
        alive1 <= !rst;
        alive2 <= alive1 && !rst;
        alive3 <= alive2 && !rst;
        settled <= alive3 && !rst;
    end
`ifndef SC_INDUCTION
    always @(*) if (settled && !rst) begin
        if (e_we && e_wa == watch) a_occupancy_is_sequential_e: assert (e_wd == spec_b_3);
        if (d_we && d_wa == watch) a_occupancy_is_sequential_d: assert (d_wd == spec_b_3);
        if (e_valid && e_key == watch) a_drop_is_sequential: assert (e_drop == spec_drop_3);
        // The operands too (a lemma: the solver keeps proven assertions for later steps, so the
        // results' check starts from operands already shown equal to the spec's).
        if (a_e_key == watch) a_operand_is_sequential_e: assert (a_x_e == spec_b_4);
        if (a_d_key == watch) a_operand_is_sequential_d: assert (a_x_d == spec_b_4);
    end
`endif

    // ---------------------------------------------------------------- CSR map
    // a_csr_write_*: a write lands in the register at the same edge, masked to its width.
    // a_csr_read_*: csr_rdata after an edge is the addressed register before that edge.
    // a_err_rw1c: writing 1 clears an error bit unless the same edge sets it (set wins).
    always @(*) if (past_ok) begin
        if (prev_csr_we && prev_csr_addr == `SC_A_XOFF)
            a_csr_write_xoff: assert (r_xoff == (prev_csr_wdata & OCC_MASK));
        if (prev_csr_we && prev_csr_addr == `SC_A_XON)
            a_csr_write_xon: assert (r_xon == (prev_csr_wdata & OCC_MASK));
        if (prev_csr_we && prev_csr_addr == `SC_A_MAX)
            a_csr_write_max: assert (r_max == (prev_csr_wdata & OCC_MASK));
        if (prev_csr_we && prev_csr_addr == `SC_A_QUANTA)
            a_csr_write_quanta: assert (r_quanta == prev_csr_wdata[15:0]);
        if (prev_csr_we && prev_csr_addr == `SC_A_REFRESH)
            a_csr_write_refresh: assert (r_refresh == prev_csr_wdata[15:0]);
        if (prev_csr_we && prev_csr_addr == `SC_A_ERR && prev_csr_wdata[0]
                && !prev_d_underflow)
            a_err_rw1c: assert (!r_err[0]);
        // Registers not addressed keep their value.
        if (!(prev_csr_we && prev_csr_addr == `SC_A_XOFF))
            a_csr_xoff_holds: assert (r_xoff == prev_r_xoff);

        if (prev_csr_addr == `SC_A_ID) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
        if (prev_csr_addr == `SC_A_XOFF) a_csr_read_xoff: assert (csr_rdata == prev_r_xoff);
        if (prev_csr_addr == `SC_A_XON) a_csr_read_xon: assert (csr_rdata == prev_r_xon);
        if (prev_csr_addr == `SC_A_MAX) a_csr_read_max: assert (csr_rdata == prev_r_max);
        if (prev_csr_addr == `SC_A_ERR) a_csr_read_err: assert (csr_rdata == {30'd0, prev_r_err});
        // a_max_in_range: MAX fits the counter width (writes are masked, the reset value fits).
        // The occupancy stage's drop test relies on it; as an assertion it also keeps
        // k-induction from starting in a state with an out-of-range MAX.
        a_max_in_range: assert (r_max <= OCC_MASK && prev_r_max <= OCC_MASK);
    end

    // ---------------------------------------------------------------- pause frames
    // a_frame_contents: a frame, on an existing port, states every existing class and pauses
    // exactly those of its port that were in XOFF on the cycle it was built, with the QUANTA
    // register's time.
    localparam [7:0] CLASSES = (1 << `SC_PRIOS) - 1;
    wire [K+7:0] frame_port_xoff = {8'd0, prev_xoff_q} >> (frame_port * G);
    always @(*) if (past_ok && frame_valid) begin
        a_frame_port_exists: assert (frame_port < `SC_PORTS);
        a_frame_every_class: assert (frame_class_enable == CLASSES);
        a_frame_pause_is_xoff: assert (frame_pause == (frame_port_xoff[7:0] & CLASSES));
        a_frame_pause_enabled: assert ((frame_pause & ~frame_class_enable) == 0);
        a_frame_quanta: assert (frame_quanta == prev_r_quanta);
    end

    // a_refresh_bound: while a port has a paused class, it gets a frame at least every
    // REFRESH + PORTS + 2 cycles (the tick, then at most one round of the round-robin arbiter,
    // then the grant register and the frame register). `wait_cycles` is ghost state per port.
    wire [`SC_PORTS-1:0] refresh_late;
    genvar p;
    generate
        for (p = 0; p < `SC_PORTS; p = p + 1) begin : refresh_check
            reg [17:0] wait_cycles = 18'd0;
            wire paused = |xoff_q[p * G +: G];
            wire served = frame_valid && frame_port == p;
            // A new REFRESH value restarts the count (the bound changes with it).
            wire restart = rst || !paused || served || r_refresh != prev_r_refresh;
            always @(posedge clk) wait_cycles <= restart ? 18'd0 : wait_cycles + 18'd1;
            // On the cycle REFRESH changes, the count still belongs to the old value: skip it.
            assign refresh_late[p] = r_refresh == prev_r_refresh
                                  && wait_cycles > r_refresh + `SC_PORTS + 2;
        end
    endgenerate
    // Not inductive (the ghost count is not tied to the refresh timer): checked by BMC only,
    // left out of the induction run with SC_INDUCTION.
`ifndef SC_INDUCTION
    always @(*) if (!rst) a_refresh_bound: assert (refresh_late == 0);
`endif
endmodule
