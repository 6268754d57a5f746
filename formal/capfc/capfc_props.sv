// Formal properties of the CaPFC block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=capfc`). The flow reads the exported rtl/capfc/<instance>.v and this file
// with `read_verilog -formal` and defines the macros below from the instance's config and
// register map:
//   SC_TOP             top module, e.g. capfc_tiny_top
//   SC_PB, SC_NB       widths of the port and priority fields of the buses
//   SC_LB              width of the length fields
//   SC_CB              counter width (counter_bits)
//   SC_PORTS, SC_PRIOS numbers of ports and priorities
//   SC_W_OCC           occupancy width in bits
//   SC_A_<REG>         word index of register <REG>
//   SC_ID_WORD         reset value of the ID register
// Probes: a wire marked `// probe: <path>` is connected by the flow, after `flatten`, to the
// internal net <path> of the design under test (rust-hdl's names in the core).
//
// Cycle conventions (docs/blocks/capfc.md, "Pipeline"): events sampled at edge n are in the
// egress occupancy stage in cycle n (`egress.e_*` / `egress.d_*`), the occupancy after edge
// n + 1; the counter stage in cycle n + 1, the counters after edge n + 2; its E requests wait
// two edges (Stop-Max's selection); the E stage in cycle n + 4, the E bits and their messages
// (eset_*, eclr_*) after edge n + 5; the D stage in cycle n + 5, the count of E bits per
// ingress key and D after edge n + 6. Ghost state kept from the
// bus events is the spec's view after edge n + 1; the properties compare each stage with the
// ghost as many edges back as the stage is late. Keys are {port, priority} (SC_NB priority
// bits); E row k holds one bit per ingress port (the E bit of egress key k and that input).
//
// The deep BMC (the BMC-only assertions to the config's depth) cuts the ingress (PFC's
// Ingress: occupancy and I): its outputs, and the `i_bits` probe into it, are free values
// there, which covers every behaviour the real one has. No BMC-only assertion is about the
// ingress (a_d_is_i_or_e is inductive, proved with the real one), PFC's formal set proves the
// module, and its pipeline state had doubled the deep run (351 s -> about 740 s; 462 s cut).
// deep-cut: ingress
//
// Assertions are named a_*, assumptions m_*. Assertions inside `ifndef SC_INDUCTION` compare
// the design with ghost state that is not tied to its RAMs (counters, snapshot, latency), so
// they are checked by BMC only; the others are also proved by k-induction. A mutant
// (`-DSC_MUTANT`) flips one assertion so the flow can be seen to fail.

module capfc_props (
    input wire clk,
    input wire rst,
    input wire in_enq_valid,
    input wire [`SC_PB-1:0] in_enq_port,
    input wire [`SC_NB-1:0] in_enq_prio,
    input wire [`SC_LB-1:0] in_enq_len,
    input wire in_deq_valid,
    input wire [`SC_PB-1:0] in_deq_port,
    input wire [`SC_NB-1:0] in_deq_prio,
    input wire [`SC_LB-1:0] in_deq_len,
    input wire eg_enq_valid,
    input wire [`SC_PB-1:0] eg_enq_port,
    input wire [`SC_NB-1:0] eg_enq_prio,
    input wire [`SC_PB-1:0] eg_enq_input,
    input wire [`SC_LB-1:0] eg_enq_len,
    input wire eg_deq_valid,
    input wire [`SC_PB-1:0] eg_deq_port,
    input wire [`SC_NB-1:0] eg_deq_prio,
    input wire [`SC_LB-1:0] eg_deq_len,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam PB = `SC_PB;
    localparam NB = `SC_NB;
    localparam KB = PB + NB;           // key = {port, priority}
    localparam G = 1 << NB;            // keys (classes) per port
    localparam K = 1 << KB;
    localparam PP = 1 << PB;           // ports padded to a power of two: bits of an E row
    localparam CB = `SC_CB;
    localparam [CB-1:0] TOP = {CB{1'b1}};
    localparam RW = PP * CB;           // a ghost counter row
    localparam [1:0] PFC_ONLY = 2'd0, STOP_MAX = 2'd1, STOP_CAL = 2'd2;

    // ---------------------------------------------------------------- the design under test
    wire in_drop, eg_drop, eset_valid, eclr_valid, frame_valid;
    wire [PB-1:0] eset_port, eclr_port, frame_port;
    wire [`SC_NB-1:0] eset_prio, eclr_prio;
    wire [PP-1:0] eset_mask, eclr_mask;
    wire [7:0] frame_class_enable, frame_pause;
    wire [15:0] frame_quanta;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .in_enq_valid(in_enq_valid), .in_enq_port(in_enq_port), .in_enq_prio(in_enq_prio),
        .in_enq_len(in_enq_len),
        .in_deq_valid(in_deq_valid), .in_deq_port(in_deq_port), .in_deq_prio(in_deq_prio),
        .in_deq_len(in_deq_len),
        .eg_enq_valid(eg_enq_valid), .eg_enq_port(eg_enq_port), .eg_enq_prio(eg_enq_prio),
        .eg_enq_input(eg_enq_input), .eg_enq_len(eg_enq_len),
        .eg_deq_valid(eg_deq_valid), .eg_deq_port(eg_deq_port), .eg_deq_prio(eg_deq_prio),
        .eg_deq_len(eg_deq_len),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .in_drop(in_drop), .eg_drop(eg_drop),
        .eset_valid(eset_valid), .eset_port(eset_port), .eset_prio(eset_prio),
        .eset_mask(eset_mask),
        .eclr_valid(eclr_valid), .eclr_port(eclr_port), .eclr_prio(eclr_prio),
        .eclr_mask(eclr_mask),
        .frame_valid(frame_valid), .frame_port(frame_port),
        .frame_class_enable(frame_class_enable), .frame_pause(frame_pause),
        .frame_quanta(frame_quanta), .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- probes
    (* keep *) wire [K-1:0] i_bits;          // probe: dut.core.ingress.decision.state$q
    (* keep *) wire [K*PP-1:0] e_rows;       // probe: dut.core.decision.e_rows.rows
    (* keep *) wire [KB-1:0] e_rows_key0;    // probe: dut.core.decision.e_rows.key0
    (* keep *) wire [KB-1:0] e_rows_key1;    // probe: dut.core.decision.e_rows.key1
    // The counter stage's requests waiting one and two edges, and Stop-Max's.
    (* keep *) wire w1_clear_valid;          // probe: dut.core.decision.w1_clear_valid$q
    (* keep *) wire [KB-1:0] w1_clear_key;   // probe: dut.core.decision.w1_clear_key$q
    (* keep *) wire w2_clear_valid;          // probe: dut.core.decision.w2_clear_valid$q
    (* keep *) wire [KB-1:0] w2_clear_key;   // probe: dut.core.decision.w2_clear_key$q
    (* keep *) wire w1_cal_valid;            // probe: dut.core.decision.w1_cal_valid$q
    (* keep *) wire [KB-1:0] w1_cal_key;     // probe: dut.core.decision.w1_cal_key$q
    (* keep *) wire w2_cal_valid;            // probe: dut.core.decision.w2_cal_valid$q
    (* keep *) wire [KB-1:0] w2_cal_key;     // probe: dut.core.decision.w2_cal_key$q
    (* keep *) wire m1_valid;                // probe: dut.core.counters.m1_valid$q
    (* keep *) wire [KB-1:0] m1_key;         // probe: dut.core.counters.m1_key$q
    (* keep *) wire m2_valid;                // probe: dut.core.counters.m2_valid$q
    (* keep *) wire [KB-1:0] m2_key;         // probe: dut.core.counters.m2_key$q
    // The E stage's operands: the requests, registered.
    (* keep *) wire r_clear_valid;           // probe: dut.core.decision.r_clear_valid$q
    (* keep *) wire [KB-1:0] r_clear_key;    // probe: dut.core.decision.r_clear_key$q
    (* keep *) wire r_set_valid;             // probe: dut.core.decision.r_set_valid$q
    (* keep *) wire [KB-1:0] r_set_key;      // probe: dut.core.decision.r_set_key$q
    // The counter stage's operands: the occupancy stage's tests, registered.
    (* keep *) wire t_warn;                  // probe: dut.core.counters.t_warn$q
    (* keep *) wire t_xoff;                  // probe: dut.core.counters.t_xoff$q
    (* keep *) wire t_reset;                 // probe: dut.core.counters.t_reset$q
    (* keep *) wire t_xon;                   // probe: dut.core.counters.t_xon$q
    (* keep *) wire [KB-1:0] t_deq_key;      // probe: dut.core.counters.t_deq_key$q
    (* keep *) wire [K-1:0] cnt0;            // probe: dut.core.decision.cnt0$q
    (* keep *) wire [K-1:0] cnt1;            // probe: dut.core.decision.cnt1$q
    (* keep *) wire [K-1:0] cnt2;            // probe: dut.core.decision.cnt2$q
    (* keep *) wire [K-1:0] cnt3;            // probe: dut.core.decision.cnt3$q
    (* keep *) wire [K-1:0] cnt4;            // probe: dut.core.decision.cnt4$q
    (* keep *) wire [K-1:0] cnt5;            // probe: dut.core.decision.cnt5$q
    (* keep *) wire [K-1:0] d_bits;          // probe: dut.core.decision.d_old
    (* keep *) wire e_valid;                 // probe: dut.core.egress.e_valid
    (* keep *) wire [KB-1:0] e_key;          // probe: dut.core.egress.e_key
    (* keep *) wire [31:0] e_b1;             // probe: dut.core.egress.e_b1
    (* keep *) wire e_drop;                  // probe: dut.core.egress.e_drop
    (* keep *) wire d_valid;                 // probe: dut.core.egress.d_valid
    (* keep *) wire [KB-1:0] d_key;          // probe: dut.core.egress.d_key
    (* keep *) wire [31:0] d_b1;             // probe: dut.core.egress.d_b1
    // Registers of the CSR bank (crates/rtl/src/csr_bank.rs), named r_<register>.
    (* keep *) wire [2:0] r_policy;          // probe: dut.core.csr.r_policy
    (* keep *) wire [15:0] r_cut;            // probe: dut.core.csr.r_cut
    (* keep *) wire [`SC_W_OCC-1:0] r_eg_xoff_q; // probe: dut.core.csr.r_eg_xoff
    (* keep *) wire [`SC_W_OCC-1:0] r_eg_xon_q;  // probe: dut.core.csr.r_eg_xon
    (* keep *) wire [`SC_W_OCC-1:0] r_eg_warn_q; // probe: dut.core.csr.r_eg_warn
    wire [31:0] r_eg_xoff = r_eg_xoff_q;     // zero-extended
    wire [31:0] r_eg_xon = r_eg_xon_q;
    wire [31:0] r_eg_warn = r_eg_warn_q;
    (* keep *) wire [`SC_W_OCC-1:0] r_eg_max_q;  // probe: dut.core.csr.r_eg_max
    wire [31:0] r_eg_max = r_eg_max_q;
    (* keep *) wire [K-1:0] pending;         // probe: dut.core.calibrate.pending$q
    (* keep *) wire cal_busy;                // probe: dut.core.calibrate.cal_busy$q
    (* keep *) wire cal_cancel;              // probe: dut.core.calibrate.cal_cancel$q
    (* keep *) wire [KB-1:0] cal_key;        // probe: dut.core.calibrate.cal_key_r$q
    (* keep *) wire capture;                 // probe: dut.core.calibrate.capture
    (* keep *) wire withdraw;                // probe: dut.core.calibrate.withdraw
    (* keep *) wire serve_capture;           // probe: dut.core.calibrate.serve_capture
    (* keep *) wire [KB-1:0] served_key;     // probe: dut.core.calibrate.served_key
    (* keep *) wire [KB-1:0] trigger_key;    // probe: dut.core.calibrate.key
    (* keep *) wire [K-1:0] rr_before;       // probe: dut.core.calibrate.rr_before$q
    (* keep *) wire [KB-1:0] withdraw_key;   // probe: dut.core.calibrate.withdraw_key
    (* keep *) wire [16*PP-1:0] fw_row;      // probe: dut.core.counters.fw_row$q
    (* keep *) wire [KB-1:0] c_key;          // probe: dut.core.counters.c_key$q
    (* keep *) wire cal_result;              // probe: dut.core.calibrate.result
    (* keep *) wire cal_summed;              // probe: dut.core.calibrate.cal_summed$q
    (* keep *) wire [16*PP-1:0] cal_counts;  // probe: dut.core.calibrate.cal_row.counts
    (* keep *) wire [PP-1:0] cal_flagged;    // probe: dut.core.calibrate.cal_row.flagged
    (* keep *) wire cal_scaled;              // probe: dut.core.calibrate.cal_scaled$q
    (* keep *) wire [31:0] cal_rem;          // probe: dut.core.calibrate.cal_rem$q
    (* keep *) wire [31:0] cal_dv;           // probe: dut.core.calibrate.cal_dv$q
    (* keep *) wire [31:0] cal_total;        // probe: dut.core.calibrate.cal_total$q
    (* keep *) wire [15:0] cal_cut;          // probe: dut.core.calibrate.cal_cut$q
    (* keep *) wire cal_done;                // probe: dut.core.calibrate.cal_done
    (* keep *) wire [PP-1:0] flags_lanes;    // probe: dut.core.calibrate.flags_lanes
    (* keep *) wire [PP-1:0] cal_sel;        // probe: dut.core.calibrate.cal_row.sel
    (* keep *) wire [PP-1:0] cal_ahead;      // probe: dut.core.calibrate.cal_row.ahead
    (* keep *) wire [15:0] cal_ahead_val;    // probe: dut.core.calibrate.cal_row.ahead_val

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset (every BMC trace begins with rst = 1). Sound: the
    // contract only defines behaviour after a reset. Induction starts anywhere and needs none.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);

    // ---------------------------------------------------------------- helpers
    wire [1:0] policy = r_policy[1:0];
    wire [KB-1:0] eset_key = {eset_port, eset_prio};
    // The input of the egress enqueue in cycle n is the bus value sampled at edge n.
    reg [PB-1:0] e_input = {PB{1'b0}};
    always @(posedge clk) e_input <= eg_enq_input;
    wire [PB-1:0] e_port = e_key[KB-1:NB];
    wire accepted = e_valid && !e_drop;
    wire xoff_hit = accepted && e_b1 >= r_eg_xoff;
    wire warn_reset = d_valid && d_b1 <= r_eg_warn;
    wire xon_clear = d_valid && d_b1 <= r_eg_xon;
    reg [K-1:0] spec_d;                // D = I or some E, per ingress key (below)

    // The previous cycle's values (yosys allows $past only in clocked blocks).
    reg past_valid = 1'b0;
    reg prev_rst, prev_csr_we;
    reg [5:0] prev_csr_addr;
    reg [31:0] prev_csr_wdata;
    reg [1:0] prev_policy, policy_2, policy_3, policy_4;   // the policy 1 to 4 cycles ago
    reg [2:0] prev_r_policy;
    reg [15:0] prev_r_cut;
    reg [K*PP-1:0] prev_e_rows;
    reg [K-1:0] prev_d;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        prev_rst <= rst;
        prev_csr_we <= csr_we;
        prev_csr_addr <= csr_addr;
        prev_csr_wdata <= csr_wdata;
        prev_policy <= policy;
        policy_2 <= prev_policy;
        policy_3 <= policy_2;
        policy_4 <= policy_3;
        prev_r_policy <= r_policy;
        prev_r_cut <= r_cut;
        prev_e_rows <= e_rows;
        prev_d <= spec_d;
    end
    wire past_ok = past_valid && !prev_rst;

    // a_tests_are_the_spec: the occupancy stage's threshold tests, which the RTL takes on the
    // arithmetic's operands (crates/rtl/src/capfc/thresholds.rs), are the spec's tests on its
    // results (§2.3: B >= WARN / XOFF after an accepted enqueue, B <= WARN / XON after a
    // dequeue), registered for the counter stage.
    reg prev_at_warn, prev_at_xoff, prev_warn_reset, prev_xon_clear;
    always @(posedge clk) begin
        prev_at_warn <= accepted && e_b1 >= r_eg_warn;
        prev_at_xoff <= xoff_hit;
        prev_warn_reset <= warn_reset;
        prev_xon_clear <= xon_clear;
    end
    always @(*) if (past_ok)
        a_tests_are_the_spec: assert (t_warn == prev_at_warn && t_xoff == prev_at_xoff
                                      && t_reset == prev_warn_reset && t_xon == prev_xon_clear);

    // ---------------------------------------------------------------- D = I or some E
    // Per ingress key (i, p): the E bits of column i over the egress rows (o, p) now and one
    // edge ago, and D as the spec defines it with the E bits one edge ago (the D stage follows
    // the E stage).
    wire [K-1:0] count_ok, diag_clear;
    genvar k;
    generate
        for (k = 0; k < K; k = k + 1) begin : column
            localparam IN = k >> NB;   // ingress port of key k
            localparam PR = k % G;     // its priority
            integer o;
            reg [7:0] ones, ones_prev;
            always @(*) begin
                ones = 8'd0;
                ones_prev = 8'd0;
                for (o = 0; o < PP; o = o + 1) begin
                    ones = ones + e_rows[((o << NB) | PR) * PP + IN];
                    ones_prev = ones_prev + prev_e_rows[((o << NB) | PR) * PP + IN];
                end
            end
            // The E messages of the last edge, not yet counted.
            wire set_in = eset_valid && eset_prio == PR && eset_mask[IN];
            wire clr_in = eclr_valid && eclr_prio == PR && eclr_mask[IN];
            // Row k's own port (the diagonal): never flagged, no input culprits itself.
            assign diag_clear[k] = !e_rows[k * PP + IN];
            assign count_ok[k] = {2'b00, cnt5[k], cnt4[k], cnt3[k], cnt2[k], cnt1[k], cnt0[k]}
                                 + {7'd0, set_in} == ones + {7'd0, clr_in};
            always @(*) spec_d[k] = i_bits[k] | (ones_prev != 8'd0);
        end
    endgenerate

    // a_e_count_is_column: the kept count of set E bits per (i, p), plus the bits the last
    // edge's E messages set and minus those they cleared (the D stage counts them on the next
    // edge), equals the E bits of column i over every egress (o, p): the incremental
    // bookkeeping never drifts.
    always @(*) if (!rst) a_e_count_is_column: assert (count_ok == {K{1'b1}});
    // a_e_count_fits: the count has the planes P - 1 needs ($clog2(P) of them); the others
    // hold 0 (the RTL never loads them). Stated so that k-induction does not start from counts
    // the planes cannot hold.
    localparam CNT_PLANES = $clog2(`SC_PORTS);
    wire [6*K-1:0] planes = {cnt5, cnt4, cnt3, cnt2, cnt1, cnt0};
    always @(*) if (past_valid) a_e_count_fits: assert ((planes >> (CNT_PLANES * K)) == 0);
    // a_e_diagonal_clear: no E row flags its own egress port, so a column has at most P - 1
    // set bits and the count fits its planes. Stated for k-induction, as the one above.
    always @(*) if (past_valid) a_e_diagonal_clear: assert (diag_clear == {K{1'b1}});

    // a_e_row_keys_track: the E rows' read-key registers hold the keys of the requests the
    // E stage registered on the same edge (the clear's and the set's), so every row the E
    // stage reads is the row it names. True after any edge by construction; stated so that
    // k-induction does not start from states where they differ.
    always @(*) if (past_valid) a_e_row_keys_track: assert (e_rows_key0 == r_clear_key
                                                             && e_rows_key1 == r_set_key);
    // a_d_is_i_or_e: the D that drives the frame generator is I or some E (of the edge before),
    // for every (i, p).
    always @(*) if (past_ok) begin
`ifdef SC_MUTANT
        // The mutant claims D is I alone: must FAIL once an E bit is set.
        a_d_is_i_or_e: assert (d_bits == i_bits);
`else
        a_d_is_i_or_e: assert (d_bits == spec_d);
`endif
    end
    localparam [7:0] CLASSES = (1 << `SC_PRIOS) - 1;   // the classes that exist
    wire [7:0] port_d = prev_d >> (frame_port * G);   // D of the frame's port, from class 0
    // a_frame_pause_is_d: a frame pauses exactly the classes of its port that were in D on the
    // cycle it was built, and only enabled classes; a_frame_every_class: it states every
    // existing class (the others carry time 0, a RESUME).
    always @(*) if (past_ok && frame_valid) begin
        a_frame_pause_is_d: assert (frame_pause == (port_d & CLASSES));
        a_frame_every_class: assert (frame_class_enable == CLASSES);
        a_frame_pause_enabled: assert ((frame_pause & ~frame_class_enable) == 8'd0);
    end

    // ---------------------------------------------------------------- E only after XOFF
    // Ghost per egress key: an accepted enqueue took B to >= XOFF since the last dequeue that
    // took B to <= XON (the dequeue acts first in a cycle, so a same-cycle XOFF wins); and its
    // value 1 to 4 edges before: the view of the registers the counter stage writes, of the
    // requests' two waiting stages, and of the E rows.
    reg [K-1:0] reached = {K{1'b0}};
    reg [K-1:0] reached_1 = {K{1'b0}};
    reg [K-1:0] reached_2 = {K{1'b0}};
    reg [K-1:0] reached_3 = {K{1'b0}};
    reg [K-1:0] reached_4 = {K{1'b0}};
    wire [K-1:0] one_k = {{(K - 1){1'b0}}, 1'b1};
    wire [K-1:0] xoff_now = xoff_hit ? one_k << e_key : {K{1'b0}};
    wire [K-1:0] xon_now = xon_clear ? one_k << d_key : {K{1'b0}};
    always @(posedge clk) begin
        reached <= rst ? {K{1'b0}} : (reached & ~xon_now) | xoff_now;
        reached_1 <= rst ? {K{1'b0}} : reached;
        reached_2 <= rst ? {K{1'b0}} : reached_1;
        reached_3 <= rst ? {K{1'b0}} : reached_2;
        reached_4 <= rst ? {K{1'b0}} : reached_3;
    end
    // The keys an XON is still on its way to: in the counter stage's tests, in the two
    // waiting stages, in the E stage's clear request.
    wire [K-1:0] xon_tested = t_xon ? one_k << t_deq_key : {K{1'b0}};
    wire [K-1:0] xon_waiting_1 = w1_clear_valid ? one_k << w1_clear_key : {K{1'b0}};
    wire [K-1:0] xon_waiting_2 = w2_clear_valid ? one_k << w2_clear_key : {K{1'b0}};
    wire [K-1:0] xon_requested = r_clear_valid ? one_k << r_clear_key : {K{1'b0}};
    wire [K-1:0] row_set;
    generate
        for (k = 0; k < K; k = k + 1) begin : rows
            assign row_set[k] = |e_rows[k * PP +: PP];
        end
    endgenerate
    always @(*) if (!rst) begin
        // a_e_only_after_xoff: an egress (o, p) has E bits only while its B reached XOFF since
        // its last XON, as of the events the E stage has seen.
        a_e_only_after_xoff: assert ((row_set & ~reached_4) == {K{1'b0}});
        // a_pending_only_after_xoff / a_calibration_only_after_xoff / a_set_only_after_xoff:
        // the same for a waiting calibration request, a running calibration whose result still
        // stands and an E set on its way to the E stage, as of the events the counter stage
        // has seen (what makes the first property inductive, with the two below).
        a_pending_only_after_xoff: assert ((pending & ~reached_1) == {K{1'b0}});
        if (cal_busy && !cal_cancel) a_calibration_only_after_xoff: assert (reached_1[cal_key]);
        if (w1_cal_valid) a_set_only_after_xoff_w1: assert (reached_1[w1_cal_key]);
        if (w2_cal_valid) a_set_only_after_xoff_w2: assert (reached_2[w2_cal_key]);
        if (m1_valid) a_max_only_after_xoff_m1: assert (reached_1[m1_key]);
        if (m2_valid) a_max_only_after_xoff_m2: assert (reached_2[m2_key]);
        if (r_set_valid) a_set_only_after_xoff: assert (reached_3[r_set_key]);
        if (t_xoff) a_xoff_test_after_xoff: assert (reached[c_key]);
        // a_xon_in_flight: a key that left the ghost's view between two edges has its XON on
        // the way to the stage that is that much later.
        a_xon_in_flight: assert ((reached_1 & ~reached & ~xon_tested) == {K{1'b0}}
                                 && (reached_2 & ~reached_1 & ~xon_waiting_1) == {K{1'b0}}
                                 && (reached_3 & ~reached_2 & ~xon_waiting_2) == {K{1'b0}}
                                 && (reached_4 & ~reached_3 & ~xon_requested) == {K{1'b0}});
    end

    // ---------------------------------------------------------------- counters (ghost)
    // The spec's arrival counters C[w][p][i] of one watched egress key w, kept from the bus
    // events: a WARN reset on dequeue, then an accepted enqueue with B >= WARN from another
    // port counts; at the top a count halves the row first (or, with the saturate option, is
    // not counted). w is any constant the solver picks, so a property proved for the watched
    // key holds for every key (one ghost row instead of K keeps BMC fast).
    (* anyconst *) reg [KB-1:0] watched;
    wire saturate = r_policy[2];
    wire counted = accepted && e_b1 >= r_eg_warn && e_input != e_port && e_key == watched;
    reg [RW-1:0] ghost = {RW{1'b0}};   // C after the last edge
    reg [RW-1:0] ghost_next;           // C after the coming edge
    wire [RW-1:0] ghost_base = (warn_reset && d_key == watched) ? {RW{1'b0}} : ghost;
    wire at_top = ghost_base[e_input * CB +: CB] == TOP;
    integer j;
    always @(*) begin
        ghost_next = ghost_base;
        if (counted) begin
            if (at_top && !saturate)
                for (j = 0; j < PP; j = j + 1) ghost_next[j * CB +: CB] = ghost_base[j * CB +: CB] >> 1;
            if (!(at_top && saturate))
                ghost_next[e_input * CB +: CB] = ghost_next[e_input * CB +: CB] + 1'b1;
        end
    end
    always @(posedge clk) ghost <= rst ? {RW{1'b0}} : ghost_next;

    // The largest counter of a row, lowest input on ties.
    function [PB-1:0] argmax(input [RW-1:0] r);
        integer a;
        reg [CB-1:0] best;
        begin
            best = {CB{1'b0}};
            argmax = {PB{1'b0}};
            for (a = 0; a < PP; a = a + 1)
                if (r[a * CB +: CB] > best) begin
                    best = r[a * CB +: CB];
                    argmax = a;
                end
        end
    endfunction

    // Algorithm 1 on a row of PP 16-bit lanes: lane a is flagged when its counter is not zero
    // and the lanes ranked before it (larger, or equal with a lower index) do not yet reach
    // CUT of the sum, den * before < num * S; the first of the ranking is always flagged.
    localparam SW = 16 + PB;           // a row's sum
    function [PP-1:0] algorithm_1(input [16*PP-1:0] r, input [15:0] cut);
        integer a, b;
        reg [SW-1:0] total, before;
        reg [15:0] sa, sb;
        begin
            total = {SW{1'b0}};
            for (b = 0; b < PP; b = b + 1) total = total + r[b * 16 +: 16];
            for (a = 0; a < PP; a = a + 1) begin
                sa = r[a * 16 +: 16];
                before = {SW{1'b0}};
                for (b = 0; b < PP; b = b + 1) begin
                    sb = r[b * 16 +: 16];
                    if (sb > sa || (sb == sa && b < a)) before = before + sb;
                end
                algorithm_1[a] = sa != 0 && (before == 0
                    || {8'd0, before} * cut[15:8] < {8'd0, total} * cut[7:0]);
            end
        end
    endfunction

    // The sum of a row's lanes, and of the lanes in `sel`.
    function [SW-1:0] lane_sum(input [16*PP-1:0] r, input [PP-1:0] sel);
        integer a;
        begin
            lane_sum = {SW{1'b0}};
            for (a = 0; a < PP; a = a + 1) if (sel[a]) lane_sum = lane_sum + r[a * 16 +: 16];
        end
    endfunction

    // The largest nonzero lane not in `flagged`, lowest lane on ties, one-hot (0 when none).
    function [PP-1:0] largest_remaining(input [16*PP-1:0] r, input [PP-1:0] flagged);
        integer a;
        reg [15:0] best;
        begin
            best = 16'd0;
            largest_remaining = {PP{1'b0}};
            for (a = 0; a < PP; a = a + 1)
                if (!flagged[a] && r[a * 16 +: 16] > best) begin
                    best = r[a * 16 +: 16];
                    largest_remaining = {{(PP-1){1'b0}}, 1'b1} << a;
                end
        end
    endfunction

    // The nonzero lanes not in `flagged`.
    function [PP-1:0] candidates(input [16*PP-1:0] r, input [PP-1:0] flagged);
        integer a;
        begin
            for (a = 0; a < PP; a = a + 1) candidates[a] = r[a * 16 +: 16] != 16'd0 && !flagged[a];
        end
    endfunction

    // `sel` is closed under the ranking: every lane ranked before a selected lane is selected,
    // and only nonzero lanes are.
    function ranked_prefix(input [16*PP-1:0] r, input [PP-1:0] sel);
        integer a, b;
        reg [15:0] sa, sb;
        begin
            ranked_prefix = 1'b1;
            for (a = 0; a < PP; a = a + 1) if (sel[a]) begin
                sa = r[a * 16 +: 16];
                if (sa == 16'd0) ranked_prefix = 1'b0;
                for (b = 0; b < PP; b = b + 1) begin
                    sb = r[b * 16 +: 16];
                    if ((sb > sa || (sb == sa && b < a)) && !sel[b]) ranked_prefix = 1'b0;
                end
            end
        end
    endfunction

    // The ghost counters 1 to 4 edges ago: the counter stage's row after its edge is `ghost`
    // as it is in its cycle.
    reg [RW-1:0] ghost_1 = {RW{1'b0}};
    reg [RW-1:0] ghost_2 = {RW{1'b0}};
    reg [RW-1:0] ghost_3 = {RW{1'b0}};
    reg [RW-1:0] ghost_4 = {RW{1'b0}};
    always @(posedge clk) begin
        ghost_1 <= ghost;
        ghost_2 <= ghost_1;
        ghost_3 <= ghost_2;
        ghost_4 <= ghost_3;
    end

    // Stop-Max on the watched key: the input it must flag for this enqueue. The counter stage
    // decides one cycle later, under the policy of that cycle; the E row holds the result four
    // edges after that (two edges' wait, the E stage).
    wire max_trigger = xoff_hit && e_key == watched && ghost_next != {RW{1'b0}};
    reg sm_trigger = 1'b0;
    reg [3:0] sm_check = 4'd0;         // a Stop-Max decision 1 to 4 edges ago
    reg [PB-1:0] sm_input, sm_input_1, sm_input_2, sm_input_3, sm_input_4;
    always @(posedge clk) begin
        sm_trigger <= !rst && max_trigger;
        sm_input <= argmax(ghost_next);
        sm_check <= rst ? 4'd0 : {sm_check[2:0], sm_trigger && policy == STOP_MAX};
        sm_input_1 <= sm_input;
        sm_input_2 <= sm_input_1;
        sm_input_3 <= sm_input_2;
        sm_input_4 <= sm_input_3;
    end

    // A calibration of the watched key: its row and CUT as the engine captured them (the
    // counter stage's row is `ghost` in its cycle), kept for four edges after its result.
    reg snap_watched = 1'b0;
    reg [RW-1:0] snap = {RW{1'b0}};
    reg [15:0] snap_cut = 16'd0;
    reg [3:0] res_watched = 4'd0;      // a result of the watched key, 1 to 4 edges ago
    reg [RW-1:0] snap_1, snap_2, snap_3, snap_4;
    reg [15:0] snap_cut_1, snap_cut_2, snap_cut_3, snap_cut_4;
    always @(posedge clk) begin
        if (rst) begin
            snap_watched <= 1'b0;
        end else if (capture) begin
            snap_watched <= c_key == watched;
            snap <= ghost;
            snap_cut <= r_cut;
        end
        res_watched <= rst ? 4'd0 : {res_watched[2:0], cal_result && snap_watched};
        snap_1 <= snap;
        snap_2 <= snap_1;
        snap_3 <= snap_2;
        snap_4 <= snap_3;
        snap_cut_1 <= snap_cut;
        snap_cut_2 <= snap_cut_1;
        snap_cut_3 <= snap_cut_2;
        snap_cut_4 <= snap_cut_3;
    end
    // Cycles the engine has been busy (saturating).
    reg [7:0] busy_for = 8'd0;
    always @(posedge clk)
        busy_for <= (rst || !cal_busy) ? 8'd0 : busy_for + (busy_for != 8'hff);

    wire [PP-1:0] one_pp = {{(PP - 1){1'b0}}, 1'b1};
    wire [PP-1:0] ghost_nonzero;
    wire [PP-1:0] snap_nonzero;
    genvar i;
    generate
        for (i = 0; i < PP; i = i + 1) begin : lanes
            assign ghost_nonzero[i] = ghost_4[i * CB +: CB] != {CB{1'b0}};
            assign snap_nonzero[i] = snap_4[i * CB +: CB] != {CB{1'b0}};
        end
    endgenerate
    reg [16*PP-1:0] snap16;            // the snapshot of four edges ago in 16-bit lanes, by input
    integer l;
    always @(*) begin
        snap16 = {16*PP{1'b0}};
        for (l = 0; l < PP; l = l + 1) snap16[l * 16 +: CB] = snap_4[l * CB +: CB];
    end
    wire [PP-1:0] snap_flags = algorithm_1(snap16, snap_cut_4);
    wire [PP-1:0] watched_row = e_rows[watched * PP +: PP];
    wire [PP-1:0] prev_watched_row = prev_e_rows[watched * PP +: PP];
    wire eset_watched = eset_valid && eset_key == watched;

    // ---------------------------------------------------------------- the engine
    // Invariants of the iterative select, in lane space (lane j = input j, or j + 1 at and
    // above the egress port), for every captured row and CUT.
    wire [SW-1:0] flagged_sum = lane_sum(cal_counts, cal_flagged);
    wire [PP-1:0] engine_flags = algorithm_1(cal_counts, cal_cut);
    always @(*) if (!rst && cal_busy) begin
        if (!cal_scaled)
            a_engine_starts_empty: assert (cal_flagged == {PP{1'b0}});
        if (cal_summed) begin
            a_engine_total: assert (cal_total == lane_sum(cal_counts, {PP{1'b1}}));
            a_engine_flags_ranked: assert (ranked_prefix(cal_counts, cal_flagged));
        end
        // The selections are registered two deep (CalRow): on the scaling edge `ahead` is the
        // first lane to flag; then `sel` is the lane flagged now and `ahead` the next, both as
        // the registers as they are now give them.
        if (cal_summed && !cal_scaled)
            a_engine_first_selection: assert (cal_ahead == largest_remaining(cal_counts, cal_flagged)
                && cal_ahead_val == lane_sum(cal_counts, cal_ahead));
        if (cal_scaled)
            a_engine_selection: assert (cal_sel == largest_remaining(cal_counts, cal_flagged)
                && cal_ahead == largest_remaining(cal_counts, cal_flagged | cal_sel)
                && cal_ahead_val == lane_sum(cal_counts, cal_ahead));
    end
`ifndef SC_INDUCTION
    // With the CUT comparison (a product of CUT and a sum) neither z3 nor Bitwuzla closes the
    // induction in 10 minutes: BMC only.
    always @(*) if (!rst && cal_busy) begin
        // The CUT test's registers: what the flagged lanes leave of num * S, and den * v of the
        // lane flagged now.
        if (cal_scaled)
            a_engine_remainder: assert (cal_rem == cal_total * cal_cut[7:0] - flagged_sum * cal_cut[15:8]
                && cal_dv == lane_sum(cal_counts, cal_sel) * cal_cut[15:8]);
        if (cal_summed) begin
            a_engine_flags_needed: assert ((cal_flagged & ~engine_flags) == {PP{1'b0}});
            if (cal_flagged != {PP{1'b0}})
                a_engine_below_cut: assert ({8'd0, flagged_sum} * cal_cut[15:8]
                                            < {8'd0, cal_total[SW-1:0]} * cal_cut[7:0]);
        end
        // a_engine_result: the flags of the finishing edge are Algorithm 1 of the row.
        if (cal_done) a_engine_result: assert (flags_lanes == engine_flags);
    end
`endif

`ifndef SC_INDUCTION
    always @(*) if (past_ok) begin
        // a_stop_max_flags_a_maximum: after an accepted enqueue at or above XOFF under
        // Stop-Max, the E row of that egress has the bit of its largest counter (lowest input
        // on ties), counted with this very packet.
        if (sm_check[3]) a_stop_max_flags_a_maximum: assert (watched_row[sm_input_4]);
        // The E messages below come from a decision of the counter stage four edges back, under
        // the policy of that cycle and on the counters `ghost_4` (Stop-Max) or the row the
        // engine captured (Stop-Calibrate).
        // a_stop_max_sets_only_the_maximum: under Stop-Max an E message sets exactly that bit.
        if (eset_watched && policy_4 == STOP_MAX)
            a_stop_max_sets_only_the_maximum: assert (eset_mask == one_pp << argmax(ghost_4));
        // a_no_e_for_zero_counter: no E bit is set for an input whose counter was zero when
        // the decision was taken: at the enqueue for Stop-Max, in the captured row for
        // Stop-Calibrate.
        if (eset_watched && policy_4 == STOP_MAX)
            a_no_e_for_zero_counter: assert ((eset_mask & ~ghost_nonzero) == {PP{1'b0}});
        if (eset_watched && policy_4 == STOP_CAL)
            a_no_e_for_zero_counter_cal: assert (res_watched[3]
                                                && (eset_mask & ~snap_nonzero) == {PP{1'b0}});
        // a_calibration_is_algorithm_1: a calibration result ORs exactly the minimal set of
        // largest counters reaching CUT of the sum, of the counters as they were at the
        // capture, into the E row (on the E stage's edge, four edges after the result).
        if (res_watched[3])
            a_calibration_is_algorithm_1: assert (watched_row == (prev_watched_row | snap_flags));
        // E is only set by these two policies.
        if (eset_valid) a_no_e_under_pfc_only: assert (policy_4 != PFC_ONLY);
    end
    // a_calibration_latency: the engine is never busy for more than P + 1 cycles (the sum, the
    // scale, then at most P - 1 flags): L_cal = 7 + max(m, 1) <= P + 6 edges after the enqueue.
    always @(*) if (!rst) a_calibration_latency: assert (busy_for <= `SC_PORTS + 1);
`endif

    // a_engine_serves_waiting_requests: while a request waits, the engine starts a
    // calibration at least every P + 2 cycles, whatever the buses carry (issue 31 item 4): it
    // is busy for at most P + 1 cycles and port B's read starts the next waiting request on the
    // cycle after. `starved` counts the cycles since the last capture while a request waits;
    // a dequeue's withdrawal restarts it (the row read for a withdrawn request starts nothing,
    // and that request needs no service). With round robin over the waiting keys this bounds
    // the wait of every request (docs/blocks/capfc.md, "Bounded reaction under any load").
    reg [7:0] starved = 8'd0;
    always @(posedge clk)
        starved <= (rst || pending == {K{1'b0}} || capture || withdraw) ? 8'd0
                   : starved + (starved != 8'hff);
    always @(*) if (!rst) a_engine_serves_waiting_requests: assert (starved <= `SC_PORTS + 1);
    // What makes it inductive: a running calibration has counted at most its own busy
    // cycles (none before the sum, one for it, one for the scale, then one per flag), and its
    // row holds no counter in the
    // lanes past the P - 1 inputs a row stores, so it flags at most P - 1 of them.
    integer f;
    reg [7:0] flagged_count;
    always @(*) begin
        flagged_count = 8'd0;
        for (f = 0; f < PP; f = f + 1) flagged_count = flagged_count + cal_flagged[f];
    end
    always @(*) if (!rst && cal_busy) begin
        a_engine_busy_starved: assert (starved <= (cal_scaled ? 8'd2 + flagged_count
                                                   : cal_summed ? 8'd1 : 8'd0));
        a_engine_row_padding_clear: assert (cal_counts >> (16 * (`SC_PORTS - 1)) == 0
                                            && cal_flagged >> (`SC_PORTS - 1) == 0);
    end
    // The counter row forwarded from the last write has those lanes clear too (the RAM does
    // not store them).
    always @(*) if (!rst) a_forwarded_row_padding_clear: assert (fw_row >> (16 * (`SC_PORTS - 1)) == 0);

    // a_no_key_started_twice_while_waiting: while the watched key's request waits, no key's
    // calibration starts twice (round robin), so with a_engine_serves_waiting_requests the
    // watched request waits at most for one calibration of every other key, each within P + 2
    // cycles, plus the one running (the bound in docs/blocks/capfc.md). `served_w` holds the
    // keys started since the watched request began to wait.
    wire [KB-1:0] started_key = serve_capture ? served_key : trigger_key;
    // A dequeue's withdrawal of the watched request ends its wait.
    wire w_waiting = pending[watched] && !(withdraw && withdraw_key == watched);
    reg [K-1:0] served_w = {K{1'b0}};
    always @(posedge clk)
        if (rst || !w_waiting || (capture && started_key == watched)) served_w <= {K{1'b0}};
        else if (capture) served_w <= served_w | ({{(K - 1){1'b0}}, 1'b1} << started_key);
    always @(*) if (!rst && w_waiting && capture && started_key != watched)
        a_no_key_started_twice_while_waiting: assert (!served_w[started_key]);
    // The spec's round-robin pointer: the key after the last one served. The RTL keeps it only
    // as the mask of the keys before it (`rr_before`).
    reg [KB-1:0] rr_next = {KB{1'b0}};
    always @(posedge clk)
        if (rst) rr_next <= {KB{1'b0}};
        else if (serve_capture) rr_next <= served_key + 1'b1;
    // What makes it inductive: the keys started while the watched request waits lie behind
    // the round-robin pointer, none from the pointer up to the watched key.
    reg behind_ok;
    integer j;
    always @(*) begin
        behind_ok = 1'b1;
        for (j = 0; j < K; j = j + 1)
            if (served_w[j] && (j[KB-1:0] - rr_next) < (watched - rr_next)) behind_ok = 1'b0;
    end
    always @(*) if (!rst && w_waiting) a_started_keys_behind_pointer: assert (behind_ok);
    // The round robin searches from a mask register: it masks exactly the keys before the
    // spec's pointer (none when the pointer has wrapped past the last key).
    always @(*) if (!rst)
        a_rr_before_is_pointer: assert (rr_before == (one_k << rr_next) - one_k);

    // ---------------------------------------------------------------- the pipeline is the spec
    // a_egress_occupancy_is_sequential: the egress occupancy stage's results for the watched
    // key (any key, the solver's choice) are those of the spec's B (§2.3, `occupancy_stage`)
    // updated one edge's events at a time from the buses, with no pipeline, forwarding or RAM:
    // the dequeue (clamped at 0), then the enqueue, dropped above eg_max as it is registered
    // in that cycle. At every hazard distance within the depth, for the B each event leaves
    // (`d_b1`, `e_b1`, unchanged by a dropped enqueue) and the drop. BMC only: the RAM is not
    // tied to the ghost in an arbitrary starting state.
    (* anyconst *) reg [KB-1:0] occ_watch;
    reg occ_enq = 1'b0, occ_deq = 1'b0;
    reg [`SC_LB-1:0] occ_enq_len = 0, occ_deq_len = 0;
    always @(posedge clk) begin
        occ_enq <= !rst && eg_enq_valid && eg_enq_port < `SC_PORTS && eg_enq_prio < `SC_PRIOS
                   && {eg_enq_port, eg_enq_prio} == occ_watch;
        occ_deq <= !rst && eg_deq_valid && eg_deq_port < `SC_PORTS && eg_deq_prio < `SC_PRIOS
                   && {eg_deq_port, eg_deq_prio} == occ_watch;
        occ_enq_len <= eg_enq_len;
        occ_deq_len <= eg_deq_len;
    end
    reg [31:0] occ_b = 32'd0;          // the watched key's B before this cycle's events
    wire [31:0] occ_after_deq = !occ_deq ? occ_b
                              : (occ_deq_len > occ_b ? 32'd0 : occ_b - occ_deq_len);
    wire occ_drop = occ_enq && {1'b0, occ_after_deq} + occ_enq_len > {1'b0, r_eg_max};
    wire [31:0] occ_after = (occ_enq && !occ_drop) ? occ_after_deq + occ_enq_len : occ_after_deq;
    always @(posedge clk) occ_b <= rst ? 32'd0 : occ_after;
`ifndef SC_INDUCTION
    always @(*) if (!rst) begin
        if (d_valid && d_key == occ_watch)
            a_egress_occupancy_is_sequential_d: assert (occ_deq && d_b1 == occ_after_deq);
        if (e_valid && e_key == occ_watch)
            a_egress_occupancy_is_sequential_e: assert (occ_enq && e_drop == occ_drop
                                                        && e_b1 == occ_after);
    end
`endif

    // ---------------------------------------------------------------- CSR map
    always @(*) if (past_ok) begin
        if (prev_csr_we && prev_csr_addr == `SC_A_POLICY)
            a_csr_write_policy: assert (r_policy == prev_csr_wdata[2:0]);
        if (!(prev_csr_we && prev_csr_addr == `SC_A_POLICY))
            a_csr_policy_holds: assert (r_policy == prev_r_policy);
        if (prev_csr_we && prev_csr_addr == `SC_A_CUT)
            a_csr_write_cut: assert (r_cut == prev_csr_wdata[15:0]);
        if (prev_csr_addr == `SC_A_ID) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
        if (prev_csr_addr == `SC_A_POLICY)
            a_csr_read_policy: assert (csr_rdata == {29'd0, prev_r_policy});
        if (prev_csr_addr == `SC_A_CUT) a_csr_read_cut: assert (csr_rdata == {16'd0, prev_r_cut});
    end
endmodule
