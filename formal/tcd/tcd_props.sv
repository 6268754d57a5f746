// Formal properties of the TCD block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=tcd`). The flow reads the exported rtl/tcd/<instance>.v and this file with
// `read_verilog -formal` and defines the macros below from the instance's config and register
// map:
//   SC_TOP           top module, e.g. tcd_tiny_top
//   SC_PB, SC_NB     widths of the port and priority fields of the buses
//   SC_QB, SC_TB     queue_bits and time_bits
//   SC_PORTS, SC_PRIOS  numbers of ports and priorities
//   SC_A_<REG>       word index of register <REG>
//   SC_ID_WORD       reset value of the ID register
// Probes: a wire marked `// probe: <path>` is connected by the flow, after `flatten`, to the
// internal net <path> of the design under test (rust-hdl's names in the core).
//
// Cycle conventions (docs/blocks/tcd.md): events sampled at edge n are applied in cycle n (the
// stage registers `*$q` hold them) with that cycle's `now`; the dequeue's entry is read in
// cycle n, tested in cycle n + 1 and decided in cycle n + 2, so its outputs are the `o_*$d`
// values of cycle n + 2, registered at edge n + 3 (`mark_*` latency 3). The props compute the
// spec's answer from the cycle-n terms of a dequeue and check its decision two cycles later. ECN: 00 Not-ECT, 10 ECT(0), 01 UE, 11 CE. LAST_STATE:
// 0 non-congestion, 1 congestion, 2 undetermined.
//
// Assertions are named a_*, assumptions m_*. Assertions inside `ifndef SC_INDUCTION` use ghost
// counters that are not tied to the RTL's timestamps, so they are checked by BMC only. A mutant
// (`-DSC_MUTANT`) flips one assertion so the flow can be seen to fail.

module tcd_props (
    input wire clk,
    input wire rst,
    input wire rx_pfc_valid,
    input wire [`SC_PB-1:0] rx_pfc_port,
    input wire [`SC_NB-1:0] rx_pfc_prio,
    input wire [15:0] rx_pfc_quanta,
    input wire [`SC_QB-1:0] rx_pfc_qlen,
    input wire rx_credit_valid,
    input wire [`SC_PB-1:0] rx_credit_port,
    input wire [`SC_NB-1:0] rx_credit_vl,
    input wire rx_credit_ok,
    input wire [`SC_QB-1:0] rx_credit_qlen,
    input wire deq_valid,
    input wire [`SC_PB-1:0] deq_port,
    input wire [`SC_NB-1:0] deq_prio,
    input wire [`SC_QB-1:0] deq_qlen,
    input wire [1:0] deq_ecn,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam KB = `SC_PB + 3;        // key = {port, 3-bit priority}
    localparam K = 1 << KB;
    localparam [31:0] TIME_MASK = (`SC_TB >= 32) ? 32'hffff_ffff : ((32'd1 << `SC_TB) - 1);
    localparam [31:0] HALF_MASK = TIME_MASK >> 1;
    localparam [31:0] QUEUE_MASK = (32'd1 << `SC_QB) - 1;
    localparam [1:0] NOT_ECT = 2'b00, UE = 2'b01, ECT0 = 2'b10, CE = 2'b11;
    localparam [1:0] UND = 2'd2;
    localparam GW = 16;                // ghost counter width (saturating: "long ago or never")

    // ---------------------------------------------------------------- the design under test
    wire mark_valid;
    wire [`SC_PB-1:0] mark_port;
    wire [`SC_NB-1:0] mark_prio;
    wire [1:0] mark_ecn, mark_state;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .rx_pfc_valid(rx_pfc_valid), .rx_pfc_port(rx_pfc_port), .rx_pfc_prio(rx_pfc_prio),
        .rx_pfc_quanta(rx_pfc_quanta), .rx_pfc_qlen(rx_pfc_qlen),
        .rx_credit_valid(rx_credit_valid), .rx_credit_port(rx_credit_port),
        .rx_credit_vl(rx_credit_vl), .rx_credit_ok(rx_credit_ok), .rx_credit_qlen(rx_credit_qlen),
        .deq_valid(deq_valid), .deq_port(deq_port), .deq_prio(deq_prio), .deq_qlen(deq_qlen),
        .deq_ecn(deq_ecn),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .mark_valid(mark_valid), .mark_port(mark_port), .mark_prio(mark_prio),
        .mark_ecn(mark_ecn), .mark_state(mark_state), .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- probes
    (* keep *) wire p_valid;                 // probe: dut.core.capture.p_valid$q
    (* keep *) wire [KB-1:0] p_key;          // probe: dut.core.capture.p_key$q
    (* keep *) wire p_stop;                  // probe: dut.core.capture.p_stop$q
    (* keep *) wire c_valid;                 // probe: dut.core.capture.c_valid$q
    (* keep *) wire [KB-1:0] c_key;          // probe: dut.core.capture.c_key$q
    (* keep *) wire c_stop;                  // probe: dut.core.capture.c_stop$q
    (* keep *) wire d_valid;                 // probe: dut.core.capture.d_valid_r$q
    (* keep *) wire d_bad;                   // probe: dut.core.capture.d_bad_r$q
    (* keep *) wire [`SC_PB-1:0] d_port;     // probe: dut.core.capture.d_port_r$q
    (* keep *) wire [2:0] d_prio;            // probe: dut.core.capture.d_prio_r$q
    (* keep *) wire [1:0] d_ecn;             // probe: dut.core.capture.d_ecn_r$q
    (* keep *) wire [1:0] o_ecn_d;           // probe: dut.core.o_ecn$d
    (* keep *) wire [1:0] o_state_d;         // probe: dut.core.o_state$d
    // Registers of the CSR bank (crates/rtl/src/csr_bank.rs), named r_<register>.
    (* keep *) wire r_mode;                  // probe: dut.core.csr.r_mode
    (* keep *) wire [1:0] r_speed_sel;       // probe: dut.core.csr.r_speed_sel
    // Speed class 0's max_ton, t_period, k (crates/rtl/src/tcd/speeds.rs: lane 4 s + word).
    (* keep *) wire [511:0] lanes;           // probe: dut.core.speeds.lanes
    wire [`SC_TB-2:0] r_max_ton_q = lanes[`SC_TB-2:0];
    wire [`SC_TB-2:0] r_t_period_q = lanes[32+`SC_TB-2:32];
    wire [`SC_QB-1:0] r_k_q = lanes[64+`SC_QB-1:64];
    wire [`SC_QB-1:0] r_k_low_q = lanes[96+`SC_QB-1:96];
    wire [31:0] r_k_low = r_k_low_q;
    (* keep *) wire [7:0] r_prio_enable;     // probe: dut.core.csr.r_prio_enable
    (* keep *) wire [1:0] r_options;         // probe: dut.core.csr.r_options
    (* keep *) wire [31:0] p_qlen;           // probe: dut.core.capture.p_qlen$q
    (* keep *) wire [31:0] c_qlen;           // probe: dut.core.capture.c_qlen$q
    (* keep *) wire [31:0] d_qlen;           // probe: dut.core.capture.d_qlen_r$q
    (* keep *) wire r_err;                   // probe: dut.core.csr.r_err
    wire [31:0] r_max_ton = r_max_ton_q;     // zero-extended
    wire [31:0] r_t_period = r_t_period_q;
    wire [31:0] r_k = r_k_q;
    (* keep *) wire [31:0] now;              // probe: dut.core.capture.now_r$q
    (* keep *) wire [K-1:0] paused_q;        // probe: dut.core.entries.paused$q
    (* keep *) wire d_we;                    // probe: dut.core.entries.ram_d_qs$write_enable
    (* keep *) wire [33:0] d_wd;             // probe: dut.core.entries.ram_d_qs$write_data

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset (every BMC trace begins with rst = 1). Sound: the
    // contract only defines behaviour after a reset. Induction starts anywhere and needs none.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);

    // Previous-cycle values (explicit registers: yosys allows $past only in clocked blocks).
    reg past_valid = 1'b0;
    reg prev_rst, prev_d_valid, prev_d_bad, prev_csr_we, prev_rx_bad, prev_enabled;
    reg pprev_rst, pprev_d_valid, pprev_d_bad, pprev_enabled;
    reg ppprev_rst, ppprev_d_valid, ppprev_d_bad;
    reg [1:0] prev_d_ecn, pprev_d_ecn, prev_o_ecn_d, prev_o_state_d;
    reg [5:0] prev_csr_addr;
    reg [1:0] prev_speed_sel;
    reg [31:0] prev_csr_wdata, prev_now, prev_r_max_ton;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        prev_rst <= rst;
        prev_d_valid <= d_valid;
        prev_d_bad <= d_bad;
        prev_enabled <= enabled;
        pprev_rst <= prev_rst;
        pprev_d_valid <= prev_d_valid;
        pprev_d_bad <= prev_d_bad;
        pprev_enabled <= prev_enabled;
        ppprev_rst <= pprev_rst;
        ppprev_d_valid <= pprev_d_valid;
        ppprev_d_bad <= pprev_d_bad;
        prev_d_ecn <= d_ecn;
        pprev_d_ecn <= prev_d_ecn;
        prev_o_ecn_d <= o_ecn_d;
        prev_o_state_d <= o_state_d;
        prev_csr_we <= csr_we;
        prev_csr_addr <= csr_addr;
        prev_speed_sel <= r_speed_sel;
        prev_csr_wdata <= csr_wdata;
        prev_now <= now;
        prev_r_max_ton <= r_max_ton;
    end
    reg past_valid2 = 1'b0;
    always @(posedge clk) past_valid2 <= past_valid;
    wire past_ok = past_valid && !prev_rst;
    // The dequeue of two cycles ago is being decided (no reset since it was sampled).
    wire decided_ok = past_valid2 && !pprev_rst && !prev_rst && !rst;

    // ---------------------------------------------------------------- the dequeue of cycle n
    wire [KB-1:0] d_key = {d_port, d_prio};
    wire enabled = r_prio_enable[d_prio];
    // The received frame of the active mode, as the stage holds it.
    wire rx_valid = r_mode ? c_valid : p_valid;
    wire [KB-1:0] rx_key = r_mode ? c_key : p_key;
    wire rx_stop = r_mode ? c_stop : p_stop;
    wire [31:0] rx_qlen = r_mode ? c_qlen : p_qlen;

    // ---------------------------------------------------------------- LAST_STATE codes
    // a_last_state_written_valid: every LAST_STATE stored in the register file is one of the
    // three codes (never 3).
    always @(*) if (!rst && d_we) a_last_state_written_valid: assert (d_wd[1:0] != 2'd3);

    // ---------------------------------------------------------------- ECN rules
    always @(*) if (decided_ok && (pprev_d_valid || pprev_d_bad)) begin
        // a_ce_stays_ce: a packet already CE leaves CE (UE never overwrites CE, nothing
        // removes it).
        if (pprev_d_ecn == CE) a_ce_stays_ce: assert (o_ecn_d == CE);
        // a_not_ect_never_marked: a Not-ECT packet leaves Not-ECT.
        if (pprev_d_ecn == NOT_ECT) a_not_ect_never_marked: assert (o_ecn_d == NOT_ECT);
        // a_marks_only_upgrade: the outgoing codepoint is the incoming one, UE or CE.
        a_marks_only_upgrade: assert (o_ecn_d == pprev_d_ecn || o_ecn_d == UE || o_ecn_d == CE);
    end
    // a_output_is_the_dequeue: mark_* after an edge is the decision registered at that edge,
    // and it is valid exactly for a dequeue sampled three edges before; the state output is a
    // valid code whenever that dequeue was classified (enabled priority).
    reg past_valid3 = 1'b0;
    always @(posedge clk) past_valid3 <= past_valid2;
    always @(*) if (past_ok) begin
        a_output_is_the_dequeue: assert (mark_ecn == prev_o_ecn_d
                                         && mark_state == prev_o_state_d);
        if (past_valid3 && !pprev_rst && !ppprev_rst)
            a_output_valid_three_edges_later: assert (mark_valid
                                                      == (ppprev_d_valid || ppprev_d_bad));
    end
    always @(*) if (decided_ok && pprev_d_valid && pprev_enabled)
        a_state_code_valid: assert (o_state_d != 2'd3);

    // ---------------------------------------------------------------- RESUME and Ton
    // Ghost state, from the events alone: per key, whether the last frame paused it, and the
    // cycles since its OFF period last ended (saturating at all ones: long ago or never).
    wire [K-1:0] resume_now;          // this cycle's frame ends an OFF period of key k
    wire [K-1:0] ghost_paused;
    wire [K-1:0] late_ue;             // key k marked UE with Ton >= max(Ton)
    wire [K-1:0] missed_ue;           // key k not UE although Ton < max(Ton)
    genvar k;
    generate
        for (k = 0; k < K; k = k + 1) begin : ghost
            reg paused = 1'b0;
            reg [GW-1:0] since = {GW{1'b1}};
            assign ghost_paused[k] = paused;
            wire hit = rx_valid && rx_key == k;
            assign resume_now[k] = hit && !rx_stop && paused;
            always @(posedge clk) begin
                if (rst) begin
                    paused <= 1'b0;
                    since <= {GW{1'b1}};
                end else begin
                    if (hit) paused <= rx_stop;
                    if (resume_now[k]) since <= {GW{1'b0}};
                    else if (since != {GW{1'b1}}) since <= since + 1'b1;
                end
            end
            // In cycle n a RESUME of cycle m < n gives Ton = n - m = since + 1. The dequeue's
            // terms of cycle n, registered twice, meet its decision in cycle n + 2 (a reset in
            // between clears them, as it clears the pipeline).
            wire deq_here = !rst && d_valid && enabled && d_key == k && !resume_now[k];
            wire ton_short = since != {GW{1'b1}} && {16'd0, since} + 32'd1 < r_max_ton;
            reg late_if_ue_t = 1'b0, missed_unless_ue_t = 1'b0;
            reg late_if_ue = 1'b0, missed_unless_ue = 1'b0;
            always @(posedge clk) begin
                late_if_ue_t <= deq_here && d_ecn == ECT0 && !ton_short;
                missed_unless_ue_t <= deq_here && (d_ecn == ECT0 || d_ecn == UE) && ton_short;
                late_if_ue <= !rst && late_if_ue_t;
                missed_unless_ue <= !rst && missed_unless_ue_t;
            end
            assign late_ue[k] = !rst && late_if_ue && o_ecn_d == UE;
            assign missed_ue[k] = !rst && missed_unless_ue
                                  && !(o_ecn_d == UE && o_state_d == UND);
        end
    endgenerate

    // a_paused_follows_frames: the block's paused bits are exactly what the PAUSE/RESUME frames
    // (IB: blocked/unblocked updates) of the active mode say.
    always @(*) if (!rst) a_paused_follows_frames: assert (paused_q == ghost_paused);

    // a_resume_same_cycle_ue: a RESUME that ends an OFF period and a dequeue of that entry in
    // the same cycle give Ton = 0: UE (for an ECT packet) and UND, whenever max(Ton) > 0.
    reg resumed_deq_t = 1'b0, resumed_deq = 1'b0;
    always @(posedge clk) begin
        resumed_deq_t <= !rst && d_valid && enabled && resume_now[d_key] && r_max_ton != 0;
        resumed_deq <= !rst && resumed_deq_t;
    end
    always @(*) if (!rst && resumed_deq) begin
`ifdef SC_MUTANT
        // The mutant claims such a packet keeps its codepoint: must FAIL.
        a_resume_same_cycle_ue: assert (pprev_d_ecn != ECT0 || o_ecn_d == ECT0);
`else
        a_resume_same_cycle_ue: assert (o_state_d == UND
                                        && (pprev_d_ecn != ECT0 || o_ecn_d == UE));
`endif
    end
`ifndef SC_INDUCTION
    // a_ue_only_within_max_ton: a packet is marked UE only while the current ON period of its
    // entry is shorter than max(Ton), counted by the ghost from the RESUME.
    always @(*) a_ue_only_within_max_ton: assert (late_ue == 0);
    // a_resume_then_ue: after a RESUME while paused, a dequeue of that entry within max(Ton)
    // is UE (ECT packets) and undetermined.
    always @(*) a_resume_then_ue: assert (missed_ue == 0);
`endif

    // ---------------------------------------------------------------- the pipeline is the spec
    // a_decision_is_sequential: every dequeue of the watched key is decided as the spec's
    // flowchart (§1.3, `Tcd::classify`) decides it on an entry updated one event at a time in
    // cycle order, with no pipeline, bypass, forwarding or RAM. `watch` is any key (the solver
    // picks it), so this holds for every key, at every hazard distance the stimulus makes: the
    // RTL reads a dequeue's entry in cycle n, tests it in n + 1 and decides in n + 2, with a
    // bypass for the dequeue decided in n + 1 and forwarding of the writes of edges n and
    // n + 1. The ghost keeps times as cycles since the event (all ones: never), which is exact
    // from reset, before `now` first wraps. BMC only.
    (* anyconst *) reg [KB-1:0] watch;
    localparam [GW-1:0] NEVER = {GW{1'b1}};
    reg g_paused = 1'b0;
    reg [GW-1:0] g_on_since = NEVER, g_t_since = NEVER;   // cycles since t_on / t_T, minus 1
    reg [31:0] g_q_rec = 32'd0;
    reg [1:0] g_last = 2'd0;
    // This cycle's frame first (spec §1.5): a RESUME while paused ends the OFF period now.
    wire g_rx_hit = rx_valid && rx_key == watch;
    wire g_resume = g_rx_hit && !rx_stop && g_paused;
    wire g_on_never = !g_resume && g_on_since == NEVER;
    wire g_t_never = !g_resume && g_t_since == NEVER;
    wire [31:0] g_ton = g_resume ? 32'd0 : {16'd0, g_on_since} + 32'd1;
    wire [31:0] g_t_age = g_resume ? 32'd0 : {16'd0, g_t_since} + 32'd1;
    wire [31:0] g_q_rec_rx = g_resume ? rx_qlen : g_q_rec;
    // Then the dequeue: the flowchart's D1, D2/D6, D4, D3, D4 at the boundary, D7.
    wire g_deq = d_valid && d_key == watch;
    wire at_boundary = r_options[0];
    wire mark_transition = r_options[1];
    wire [1:0] ecn_ue = (d_ecn == CE || d_ecn == NOT_ECT) ? d_ecn : UE;
    wire [1:0] ecn_ce = (d_ecn == NOT_ECT) ? NOT_ECT : CE;
    reg [1:0] g_state, g_ecn;
    reg g_restart_t;   // ResetTimer(T); RecordQueue()
    always @(*) begin
        g_state = g_last;
        g_ecn = d_ecn;
        g_restart_t = 1'b0;
        if (!enabled) begin
            // A disabled priority passes the packet and keeps the entry.
        end else if (!g_on_never && g_ton < r_max_ton) begin
            g_state = UND;
            g_ecn = ecn_ue;
        end else if (g_last != UND) begin
            g_state = d_qlen > r_k ? 2'd1 : 2'd0;
            if (d_qlen > r_k) g_ecn = ecn_ce;
        end else if (!at_boundary && d_qlen < r_k_low) begin
            g_state = 2'd0;
        end else if (!g_t_never && g_t_age < r_t_period) begin
            // Within T: stays undetermined.
        end else begin
            g_restart_t = 1'b1;
            if (at_boundary && d_qlen < r_k_low) g_state = 2'd0;
            else if (d_qlen >= g_q_rec_rx && d_qlen > r_k) begin
                g_state = 2'd1;
                if (mark_transition) g_ecn = ecn_ce;
            end
        end
    end
    reg g_check_t = 1'b0, g_check = 1'b0;
    reg [1:0] g_want_state_t = 2'd0, g_want_ecn_t = 2'd0;
    reg [1:0] g_want_state = 2'd0, g_want_ecn = 2'd0;
    always @(posedge clk) begin
        if (rst) begin
            g_paused <= 1'b0;
            g_on_since <= NEVER;
            g_t_since <= NEVER;
            g_q_rec <= 32'd0;
            g_last <= 2'd0;
        end else begin
            if (g_rx_hit) g_paused <= rx_stop;
            g_on_since <= g_resume ? {GW{1'b0}} : (g_on_since == NEVER ? NEVER : g_on_since + 1'b1);
            g_t_since <= (g_resume || (g_deq && g_restart_t)) ? {GW{1'b0}}
                       : (g_t_since == NEVER ? NEVER : g_t_since + 1'b1);
            g_q_rec <= (g_deq && g_restart_t) ? d_qlen : g_q_rec_rx;
            if (g_deq) g_last <= g_state;
        end
        g_check_t <= !rst && g_deq;
        g_want_state_t <= g_state;
        g_want_ecn_t <= g_ecn;
        g_check <= !rst && g_check_t;
        g_want_state <= g_want_state_t;
        g_want_ecn <= g_want_ecn_t;
    end
`ifndef SC_INDUCTION
    always @(*) if (!rst && g_check)
        a_decision_is_sequential: assert (o_state_d == g_want_state && o_ecn_d == g_want_ecn);
`endif

    // ---------------------------------------------------------------- time
    // a_time_counts: the timestamp counter advances by one per cycle, modulo 2^time_bits.
    always @(*) if (past_ok) a_time_counts: assert (now == ((prev_now + 32'd1) & TIME_MASK));

    // ---------------------------------------------------------------- CSR map
    // max_ton, t_period and k are windows on speed class speed_sel; the formal config has one
    // class, so a write with speed_sel != 0 stores nothing and a read returns 0.
    wire class0 = prev_speed_sel == 2'd0;
    always @(*) if (past_ok) begin
        if (prev_csr_we && prev_csr_addr == `SC_A_MAX_TON && class0)
            a_csr_write_max_ton: assert (r_max_ton == (prev_csr_wdata & HALF_MASK));
        if (prev_csr_we && prev_csr_addr == `SC_A_T_PERIOD && class0)
            a_csr_write_t_period: assert (r_t_period == (prev_csr_wdata & HALF_MASK));
        if (prev_csr_we && prev_csr_addr == `SC_A_K && class0)
            a_csr_write_k: assert (r_k == (prev_csr_wdata & QUEUE_MASK));
        if (!(prev_csr_we && prev_csr_addr == `SC_A_MAX_TON && class0))
            a_csr_max_ton_holds: assert (r_max_ton == prev_r_max_ton);
        if (prev_csr_addr == `SC_A_ID) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
        if (prev_csr_addr == `SC_A_MAX_TON)
            a_csr_read_max_ton: assert (csr_rdata == (class0 ? prev_r_max_ton : 32'd0));
        if (prev_csr_addr == `SC_A_NOW) a_csr_read_now: assert (csr_rdata == prev_now);
    end
endmodule
