// Formal properties of the BFC block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=bfc`, config formal/bfc/bfc_formal.toml: 8 flow-table entries, so events
// start 8 edges after reset). The flow reads the exported Verilog and this file with
// `read_verilog -formal` and defines the macros below from the instance's config and register
// map:
//   SC_TOP                top module, e.g. bfc_formal_top
//   SC_W_<PORT>           width of every port of the block (its fields depend on the config)
//   SC_PB, SC_QB, SC_UB   widths of port, queue and upstream-queue indices
//   SC_PORTS, SC_QUEUES, SC_UPSTREAM  numbers of ports, queues per port, upstream queues
//   SC_INIT               edges after reset during which events are refused (the reset sweep)
//   SC_M, SC_SIZE_MAX     flow-table entries per egress port, largest flow-table size count
//   SC_A_<REG>            word index of register <REG>
//   SC_ID_WORD            reset value of the ID register
//
// Cycle conventions (docs/blocks/bfc.md): the events sampled at edge n give their results
// (asg_*, pause_*, resume_*) after edge n + 2 (EVENT_LATENCY); `ready` after edge n says
// whether edge n + 1 accepts events; csr_rdata after edge n is the register addressed at edge
// n. The `p1_*` registers below hold the inputs of the last edge, `p2_*` those of the edge
// before, `p3_*` those of the edge before that (the events whose results are out now).
//
// Assertions are named a_*, assumptions m_*. Assertions inside `ifndef SC_INDUCTION` use ghost
// state (edges since reset, which upstream queues are paused) or RAM contents that induction
// cannot relate to an arbitrary start state, so they are checked by BMC only; the others are
// also proved by k-induction. A mutant (`-DSC_MUTANT`) flips one assertion so the flow can be
// seen to fail.

module bfc_props (
    input wire clk,
    input wire rst,
    input wire enq_valid,
    input wire [`SC_W_ENQ_IN_PORT-1:0] enq_in_port,
    input wire [`SC_W_ENQ_EG_PORT-1:0] enq_eg_port,
    input wire [`SC_W_ENQ_FID-1:0] enq_fid,
    input wire [`SC_W_ENQ_LEN-1:0] enq_len,
    input wire [`SC_W_ENQ_UPSTREAM_Q-1:0] enq_upstream_q,
    input wire [`SC_W_ENQ_CLASS-1:0] enq_class,
    input wire enq_incast,
    input wire deq_valid,
    input wire [`SC_W_DEQ_EG_PORT-1:0] deq_eg_port,
    input wire [`SC_W_DEQ_QUEUE-1:0] deq_queue,
    input wire [`SC_W_DEQ_FT_KEY-1:0] deq_ft_key,
    input wire deq_counter_incr,
    input wire [`SC_W_DEQ_IN_PORT-1:0] deq_in_port,
    input wire [`SC_W_DEQ_UPSTREAM_Q-1:0] deq_upstream_q,
    input wire [`SC_W_DEQ_LEN-1:0] deq_len,
    input wire deq_ft_skip,
    input wire rx_valid,
    input wire [`SC_W_RX_PORT-1:0] rx_port,
    input wire [1:0] rx_kind,
    input wire [`SC_W_RX_QUEUE-1:0] rx_queue,
    input wire [`SC_W_RX_BASE-1:0] rx_base,
    input wire [`SC_W_RX_BITMAP-1:0] rx_bitmap,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam IB = `SC_W_PAUSE_PORT + `SC_W_PAUSE_QUEUE;   // {ingress, upstream queue}
    localparam J = 1 << IB;

    // ---------------------------------------------------------------- the design under test
    wire ready, asg_valid, asg_refused, asg_counter_incr, asg_new, asg_ft_skip;
    wire pause_valid, resume_valid, bm_valid;
    wire [`SC_W_ASG_QUEUE-1:0] asg_queue;
    wire [`SC_W_ASG_FT_KEY-1:0] asg_ft_key;
    wire [`SC_W_PAUSE_PORT-1:0] pause_port;
    wire [`SC_W_PAUSE_QUEUE-1:0] pause_queue;
    wire [`SC_W_RESUME_PORT-1:0] resume_port;
    wire [`SC_W_RESUME_QUEUE-1:0] resume_queue;
    wire [`SC_W_BM_PORT-1:0] bm_port;
    wire [`SC_W_BM_BASE-1:0] bm_base;
    wire [`SC_W_BM_BITS-1:0] bm_bits;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .enq_valid(enq_valid), .enq_in_port(enq_in_port), .enq_eg_port(enq_eg_port),
        .enq_fid(enq_fid), .enq_len(enq_len), .enq_upstream_q(enq_upstream_q),
        .enq_class(enq_class), .enq_incast(enq_incast),
        .deq_valid(deq_valid), .deq_eg_port(deq_eg_port), .deq_queue(deq_queue),
        .deq_ft_key(deq_ft_key), .deq_counter_incr(deq_counter_incr),
        .deq_in_port(deq_in_port), .deq_upstream_q(deq_upstream_q), .deq_len(deq_len),
        .deq_ft_skip(deq_ft_skip),
        .rx_valid(rx_valid), .rx_port(rx_port), .rx_kind(rx_kind), .rx_queue(rx_queue),
        .rx_base(rx_base), .rx_bitmap(rx_bitmap),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .ready(ready), .asg_valid(asg_valid), .asg_refused(asg_refused),
        .asg_queue(asg_queue), .asg_ft_key(asg_ft_key), .asg_counter_incr(asg_counter_incr),
        .asg_new(asg_new), .asg_ft_skip(asg_ft_skip),
        .pause_valid(pause_valid), .pause_port(pause_port), .pause_queue(pause_queue),
        .resume_valid(resume_valid), .resume_port(resume_port), .resume_queue(resume_queue),
        .bm_valid(bm_valid), .bm_port(bm_port), .bm_base(bm_base), .bm_bits(bm_bits),
        .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset (every BMC trace begins with rst = 1). Sound: the
    // contract only defines behaviour after a reset. Induction starts anywhere and needs none.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);

    // ---------------------------------------------------------------- the inputs of past edges
    // Cleared by reset as the block's own input stage is, so they match it under induction.
    reg p1_enq = 1'b0, p2_enq = 1'b0, p3_enq = 1'b0, p1_deq = 1'b0, p2_deq = 1'b0, p3_deq = 1'b0;
    reg p1_cnt = 1'b0, p2_cnt = 1'b0, p3_cnt = 1'b0;
    reg [`SC_W_ENQ_IN_PORT-1:0] p1_enq_in = 0, p2_enq_in = 0, p3_enq_in = 0;
    reg [`SC_W_ENQ_UPSTREAM_Q-1:0] p1_enq_upq = 0, p2_enq_upq = 0, p3_enq_upq = 0;
    reg [`SC_W_DEQ_IN_PORT-1:0] p1_deq_in = 0, p2_deq_in = 0, p3_deq_in = 0;
    reg [`SC_W_DEQ_UPSTREAM_Q-1:0] p1_deq_upq = 0, p2_deq_upq = 0, p3_deq_upq = 0;
    reg [`SC_W_ENQ_EG_PORT-1:0] p1_enq_eg = 0, p2_enq_eg = 0, p3_enq_eg = 0;
    reg [`SC_W_ENQ_LEN-1:0] p1_enq_len = 0, p2_enq_len = 0, p3_enq_len = 0;
    reg [`SC_W_DEQ_EG_PORT-1:0] p1_deq_eg = 0, p2_deq_eg = 0, p3_deq_eg = 0;
    reg [`SC_W_DEQ_QUEUE-1:0] p1_deq_q = 0, p2_deq_q = 0, p3_deq_q = 0;
    reg [`SC_W_DEQ_FT_KEY-1:0] p1_deq_key = 0, p2_deq_key = 0, p3_deq_key = 0;
    reg [`SC_W_DEQ_LEN-1:0] p1_deq_len = 0, p2_deq_len = 0, p3_deq_len = 0;
    reg [5:0] p1_csr_addr = 6'd0;
    reg p1_live = 1'b0;                 // an edge without reset has passed
    always @(posedge clk) begin
        p1_enq <= !rst && enq_valid;
        p2_enq <= !rst && p1_enq;
        p3_enq <= !rst && p2_enq;
        p1_deq <= !rst && deq_valid;
        p2_deq <= !rst && p1_deq;
        p3_deq <= !rst && p2_deq;
        p1_cnt <= !rst && deq_counter_incr;
        p2_cnt <= !rst && p1_cnt;
        p3_cnt <= !rst && p2_cnt;
        p1_enq_in <= rst ? 0 : enq_in_port;
        p2_enq_in <= rst ? 0 : p1_enq_in;
        p3_enq_in <= rst ? 0 : p2_enq_in;
        p1_enq_upq <= rst ? 0 : enq_upstream_q;
        p2_enq_upq <= rst ? 0 : p1_enq_upq;
        p3_enq_upq <= rst ? 0 : p2_enq_upq;
        p1_deq_in <= rst ? 0 : deq_in_port;
        p2_deq_in <= rst ? 0 : p1_deq_in;
        p3_deq_in <= rst ? 0 : p2_deq_in;
        p1_deq_upq <= rst ? 0 : deq_upstream_q;
        p2_deq_upq <= rst ? 0 : p1_deq_upq;
        p3_deq_upq <= rst ? 0 : p2_deq_upq;
        p1_enq_eg <= rst ? 0 : enq_eg_port;
        p2_enq_eg <= rst ? 0 : p1_enq_eg;
        p3_enq_eg <= rst ? 0 : p2_enq_eg;
        p1_enq_len <= rst ? 0 : enq_len;
        p2_enq_len <= rst ? 0 : p1_enq_len;
        p3_enq_len <= rst ? 0 : p2_enq_len;
        p1_deq_eg <= rst ? 0 : deq_eg_port;
        p2_deq_eg <= rst ? 0 : p1_deq_eg;
        p3_deq_eg <= rst ? 0 : p2_deq_eg;
        p1_deq_q <= rst ? 0 : deq_queue;
        p2_deq_q <= rst ? 0 : p1_deq_q;
        p3_deq_q <= rst ? 0 : p2_deq_q;
        p1_deq_key <= rst ? 0 : deq_ft_key;
        p2_deq_key <= rst ? 0 : p1_deq_key;
        p3_deq_key <= rst ? 0 : p2_deq_key;
        p1_deq_len <= rst ? 0 : deq_len;
        p2_deq_len <= rst ? 0 : p1_deq_len;
        p3_deq_len <= rst ? 0 : p2_deq_len;
        p1_csr_addr <= csr_addr;
        p1_live <= !rst;
    end

    // ---------------------------------------------------------------- structural (inductive)
    always @(*) begin
        // Every enqueue gets one assignment result, two edges after its own; nothing else does.
        a_asg_per_enqueue: assert (asg_valid == p3_enq);
        // A refused enqueue is not assigned, counted or new.
        a_refused_is_empty: assert (!(asg_refused && (asg_counter_incr || asg_new || asg_ft_skip)));
        // RESUME only for the marked departure of that edge, at its (ingress, upstream queue).
        a_resume_needs_marked_departure: assert (!resume_valid ||
            (p3_deq && p3_cnt && resume_port == p3_deq_in && resume_queue == p3_deq_upq));
        // PAUSE only with the enqueue of that edge, at its (ingress, upstream queue).
        a_pause_needs_enqueue: assert (!pause_valid ||
            (p3_enq && pause_port == p3_enq_in && pause_queue == p3_enq_upq));
        // The ID register reads its constant.
        if (p1_live && p1_csr_addr == `SC_A_ID) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
    end

`ifndef SC_INDUCTION
    // ---------------------------------------------------------------- ghost state (BMC only)
    // Edges since reset, saturating at SC_INIT + 1.
    reg [15:0] since = 16'd0;
    always @(posedge clk) since <= rst ? 16'd0 : (since > `SC_INIT ? since : since + 16'd1);
    // `ready` as it was when the enqueue behind this cycle's assignment was sampled.
    reg p1_ready = 1'b0, p2_ready = 1'b0, p3_ready = 1'b0;
    always @(posedge clk) begin
        p1_ready <= !rst && ready;
        p2_ready <= !rst && p1_ready;
        p3_ready <= !rst && p2_ready;
    end
    // Which (ingress, upstream queue) the block has paused: set by PAUSE, cleared by RESUME.
    reg [J-1:0] paused = {J{1'b0}};
    always @(posedge clk) begin
        if (rst) paused <= {J{1'b0}};
        else begin
            if (pause_valid) paused[{pause_port, pause_queue}] <= 1'b1;
            if (resume_valid) paused[{resume_port, resume_queue}] <= 1'b0;
        end
    end

    always @(*) begin
        if (!init) begin
            // The reset sweep: `ready` rises SC_INIT edges after reset and stays high.
`ifdef SC_MUTANT
            // The mutant is one edge late, which the edge `ready` rises refutes.
            a_ready_after_sweep: assert (ready == (since > `SC_INIT));
`else
            a_ready_after_sweep: assert (ready == (since >= `SC_INIT));
`endif
            // An enqueue sampled while the block was not ready is refused.
            if (asg_valid && !p3_ready) a_refused_while_sweeping: assert (asg_refused);
            // The control queue 0 is never assigned, nor a queue the port does not have.
            if (asg_valid && !asg_refused)
                a_data_queue_assigned: assert (asg_queue != 0 && asg_queue < `SC_QUEUES);
            // PAUSE and RESUME alternate per upstream queue, PAUSE first: a counter leaves 0
            // once and returns to 0 once (spec §3.3: never a spurious pair).
            if (pause_valid) a_pause_resume_alternate: assert (!paused[{pause_port, pause_queue}]);
            if (resume_valid) a_resume_after_pause: assert (paused[{resume_port, resume_queue}]);
            // A PAUSE comes from a counted arrival (its counter was 0 and it raised it).
            if (pause_valid) a_pause_is_counted: assert (asg_counter_incr);
            // Never a PAUSE and a RESUME of one upstream queue in one cycle (net change).
            if (pause_valid && resume_valid)
                a_no_pause_resume_pair: assert ({pause_port, pause_queue} != {resume_port, resume_queue});
        end
    end

    // ---------------------------------------------------------------- the switch around it
    // Ghost copies of the block's state, kept from its outputs as a traffic manager sees them:
    // "reported" counts follow the results out so far (asg_* of an arrival and the departure of
    // the same edge come out together); "queued" counts are what the traffic manager still
    // holds, so they also drop by the departures sampled but not yet reported.
    localparam EB = `SC_W_DEQ_EG_PORT + `SC_W_ASG_FT_KEY;   // {egress, key}
    localparam QI = `SC_W_DEQ_EG_PORT + `SC_W_DEQ_QUEUE;    // {egress, queue}
    // The result out now: an accepted arrival, and the departure sampled with it.
    wire arr_now = asg_valid && !asg_refused;
    wire [EB-1:0] arr_entry = {p3_enq_eg, asg_ft_key};
    wire [QI-1:0] arr_queue = {p3_enq_eg, asg_queue};
    wire [EB-1:0] dep_entry = {p3_deq_eg, p3_deq_key};
    wire [QI-1:0] dep_queue = {p3_deq_eg, p3_deq_q};
    // The departure sampled at the coming edge.
    wire [EB-1:0] take_entry = {deq_eg_port, deq_ft_key};
    wire [QI-1:0] take_queue = {deq_eg_port, deq_queue};
    wire [IB-1:0] take_j = {deq_in_port, deq_upstream_q};
    // The assignment rules are the dynamic mode's (the reset mode of the formal config):
    // checked until MODE is written; the empty-queue rule also until a class range is.
    reg mode_written = 1'b0, assign_csr_written = 1'b0;
    always @(posedge clk)
        if (rst) begin
            mode_written <= 1'b0;
            assign_csr_written <= 1'b0;
        end else if (csr_we) begin
            if (csr_addr == `SC_A_MODE) mode_written <= 1'b1;
            if (csr_addr == `SC_A_MODE || csr_addr >= `SC_A_CLASS0) assign_csr_written <= 1'b1;
        end

    // m_departure_of_a_queued_packet: every departure carries the metadata the block gave a
    // packet still queued (its entry, queue and counter bit), a length that does not exceed its
    // queue, and well-formed fields. Sound: this is the contract of the dequeue bus (spec
    // §3.3, the traffic manager returns the packet's metadata); damaged metadata is covered by
    // the Verilator equivalence runs, not by these properties.
    always @(*) if (!rst && deq_valid) begin
        m_departure_well_formed: assume (deq_eg_port < `SC_PORTS && deq_queue != 0
            && deq_queue < `SC_QUEUES && deq_ft_key < `SC_M && deq_len != 0
            && (!deq_counter_incr || (deq_in_port < `SC_PORTS && deq_upstream_q < `SC_UPSTREAM)));
    end

    // yosys names a labelled assertion after its label alone, so a label inside a generate loop
    // would repeat: each loop below computes one bit per index and a single labelled
    // assertion (or assumption) after it checks them all.
    genvar g;
    wire [J-1:0] pc_take_ok, pc_pause_ok, pc_resume_ok, pc_paused_ok;
    // Pause counters: marked packets per (ingress, upstream queue).
    generate for (g = 0; g < J; g = g + 1) begin : pc
        wire inc = arr_now && asg_counter_incr && {p3_enq_in, p3_enq_upq} == g;
        wire dec = p3_deq && p3_cnt && {p3_deq_in, p3_deq_upq} == g;
        reg [4:0] reported = 5'd0, queued = 5'd0;
        wire [4:0] reported_next = reported + inc - dec;
        wire take = deq_valid && deq_counter_incr && take_j == g;
        always @(posedge clk) begin
            reported <= rst ? 5'd0 : reported_next;
            queued <= rst ? 5'd0 : queued + inc - take;
        end
        assign pc_take_ok[g] = !take || queued + inc != 0;
        assign pc_pause_ok[g] = (pause_valid && {pause_port, pause_queue} == g)
            == (reported == 0 && reported_next != 0);
        assign pc_resume_ok[g] = (resume_valid && {resume_port, resume_queue} == g)
            == (reported != 0 && reported_next == 0);
        assign pc_paused_ok[g] = paused[g] == (reported != 0);
    end endgenerate
    always @(*) if (!rst) m_marked_departure_was_counted: assume (&pc_take_ok);
    always @(*) if (!init) begin
        // PAUSE for j exactly when its counter goes from 0 to positive in the cycle, RESUME
        // exactly when it returns to 0 (spec §3.3, by the net change of the cycle).
        a_pause_iff_counter_leaves_zero: assert (&pc_pause_ok);
        a_resume_iff_counter_returns_to_zero: assert (&pc_resume_ok);
        // j is paused exactly while a marked packet of j is in the switch.
        a_paused_iff_marked_packet_queued: assert (&pc_paused_ok);
    end

    // Flow-table entries: packets in the switch and the queue they were given.
    wire [(1 << EB)-1:0] ft_take_ok, ft_keep_ok;
    generate for (g = 0; g < (1 << EB); g = g + 1) begin : ft
        wire arr = arr_now && arr_entry == g;
        wire dep = p3_deq && dep_entry == g;
        reg [4:0] reported = 5'd0, queued = 5'd0;
        reg [`SC_W_ASG_QUEUE-1:0] q = 0;
        // The count went past what `size` holds: the block flagged saturation and may lose track.
        reg overflowed = 1'b0;
        wire take = deq_valid && take_entry == g;
        always @(posedge clk) begin
            reported <= rst ? 5'd0 : reported + arr - dep;
            queued <= rst ? 5'd0 : queued + arr - take;
            if (arr) q <= asg_queue;
            overflowed <= !rst && (overflowed || reported + arr - dep > `SC_SIZE_MAX)
                && reported + arr - dep != 0;
        end
        assign ft_take_ok[g] = !take || (queued + arr != 0 && deq_queue == (arr ? asg_queue : q));
        assign ft_keep_ok[g] = !(arr && reported - dep != 0 && !overflowed && !mode_written)
            || (asg_queue == q && !asg_new);
    end endgenerate
    always @(*) if (!rst) m_departure_of_a_queued_packet: assume (&ft_take_ok);
    // An arrival at an entry that still has packets (after the departure of its own cycle)
    // keeps the entry's queue and is not new (spec §3.3: reassign only at size 0), in dynamic
    // mode: the stochastic and single modes pick a queue per packet by design.
    always @(*) if (!init) a_entry_with_packets_keeps_its_queue: assert (&ft_keep_ok);

    // Queue occupancies in bytes, and the empty-queue rule of dynamic assignment.
    localparam OW = 12;
    wire [OW*(1 << QI)-1:0] occ_seen;     // per {egress, queue}, as the arrival out now saw it
    wire [(1 << QI)-1:0] occ_past_max;     // an occupancy would pass what the block holds
    wire [(1 << QI)-1:0] occ_take_ok;
    generate for (g = 0; g < (1 << QI); g = g + 1) begin : occ
        reg [OW-1:0] reported = 0, queued = 0;
        wire [OW-1:0] add = (arr_now && arr_queue == g) ? p3_enq_len : 0;
        wire [OW-1:0] sub = (p3_deq && dep_queue == g) ? p3_deq_len : 0;
        wire [OW-1:0] take = (deq_valid && take_queue == g) ? deq_len : 0;
        always @(posedge clk) begin
            reported <= rst ? 0 : reported + add - sub;
            queued <= rst ? 0 : queued + add - take;
        end
        assign occ_take_ok[g] = !(deq_valid && take_queue == g) || take <= queued + add;
        assign occ_seen[g*OW +: OW] = reported - sub;
        assign occ_past_max[g] = reported + add - sub > `SC_OCC_MAX;
    end endgenerate
    always @(*) if (!rst) m_departure_within_its_queue: assume (&occ_take_ok);
    // Once an occupancy saturated (flagged by the block) the ghost no longer matches it.
    reg occ_saturated = 1'b0;
    always @(posedge clk) occ_saturated <= !rst && (occ_saturated || |occ_past_max);
    reg some_empty;
    integer k;
    always @(*) begin
        some_empty = 1'b0;
        for (k = 1; k < `SC_QUEUES; k = k + 1)
            if (occ_seen[({p3_enq_eg, k[`SC_W_DEQ_QUEUE-1:0]})*OW +: OW] == 0) some_empty = 1'b1;
    end
    // A new assignment takes an empty queue when the egress has one: the empty bitmap the
    // search reads matches the occupancies (spec §3.3, dynamic mode, the reset's class map).
    always @(*) if (!init && arr_now && asg_new && !assign_csr_written && !occ_saturated) begin
        a_new_queue_is_empty_when_one_is: assert (!some_empty || occ_seen[arr_queue*OW +: OW] == 0);
    end
`endif
endmodule
