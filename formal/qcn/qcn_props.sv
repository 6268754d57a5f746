// Formal properties of the QCN block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=qcn`, config formal/qcn/qcn_formal.toml). The flow reads the exported
// rtl/qcn/<instance>.v and this file with `read_verilog -formal` and defines the macros below
// from the instance's config and register map:
//   SC_TOP           top module
//   SC_PB, SC_NB     widths of the port and priority fields of the buses; SC_DB of eg_qdepth
//   SC_LB            width of the ingress lengths
//   SC_PORTS, SC_PRIOS  numbers of ports and priorities
//   SC_Q_MIN, SC_Q_EQ, SC_W, SC_FB_M, SC_FB_E  the P_fb step and Fb's constants at reset
//   SC_T_FB, SC_INIT, SC_FBP_LATENCY  T_fb (1-cycle units), the reset sweep, the FBP's latency
//   SC_A_<REG>       word index of register <REG>
//
// The properties are a specification written from the spec alone (§5.2, §5.4, §4.3's Fb),
// with ghost state fed by the ports: which arrivals are sampled (P_fb is the testbed's step,
// 1 above Q_min), each queue's q_old, each arrival's Fb6, a chosen flow's last FBP. They hold
// for the registers' reset values: the
// assumption m_registers_at_reset keeps software from rewriting the CP's and the PFC's
// parameters (their run-time writes are the co-simulation's). Assertions inside
// `ifndef SC_INDUCTION` use ghost state that is not tied to the RTL's memories in an arbitrary
// starting state, so they are checked by BMC only. A mutant (`-DSC_MUTANT`) flips one
// assertion so the flow can be seen to fail.

module qcn_props (
    input wire clk,
    input wire rst,
    input wire eg_valid,
    input wire [`SC_PB-1:0] eg_port,
    input wire [`SC_NB-1:0] eg_prio,
    input wire [`SC_DB-1:0] eg_qdepth,
    input wire [31:0] eg_src,
    input wire [31:0] eg_dst,
    input wire in_enq_valid,
    input wire [`SC_PB-1:0] in_enq_port,
    input wire [`SC_NB-1:0] in_enq_prio,
    input wire [`SC_LB-1:0] in_enq_len,
    input wire in_deq_valid,
    input wire [`SC_PB-1:0] in_deq_port,
    input wire [`SC_NB-1:0] in_deq_prio,
    input wire [`SC_LB-1:0] in_deq_len,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam KB = `SC_PB + `SC_NB;
    localparam K = 1 << KB;
    localparam L = `SC_FBP_LATENCY;
    localparam GW = 16;                // ghost counter width (saturating: "long ago or never")

    // ---------------------------------------------------------------- the design under test
    wire fbp_valid;
    wire [`SC_PB-1:0] fbp_port;
    wire [`SC_NB-1:0] fbp_prio;
    wire [31:0] fbp_src, fbp_dst;
    wire [5:0] fbp_fb;
    wire in_drop, xoff_valid, xon_valid, frame_valid;
    wire [`SC_PB-1:0] xoff_port, xon_port, frame_port;
    wire [`SC_NB-1:0] xoff_prio, xon_prio;
    wire [7:0] frame_class_enable, frame_pause;
    wire [15:0] frame_quanta;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .eg_valid(eg_valid), .eg_port(eg_port), .eg_prio(eg_prio), .eg_qdepth(eg_qdepth),
        .eg_src(eg_src), .eg_dst(eg_dst),
        .in_enq_valid(in_enq_valid), .in_enq_port(in_enq_port), .in_enq_prio(in_enq_prio),
        .in_enq_len(in_enq_len),
        .in_deq_valid(in_deq_valid), .in_deq_port(in_deq_port), .in_deq_prio(in_deq_prio),
        .in_deq_len(in_deq_len),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .fbp_valid(fbp_valid), .fbp_port(fbp_port), .fbp_prio(fbp_prio),
        .fbp_src(fbp_src), .fbp_dst(fbp_dst), .fbp_fb(fbp_fb),
        .in_drop(in_drop),
        .xoff_valid(xoff_valid), .xoff_port(xoff_port), .xoff_prio(xoff_prio),
        .xon_valid(xon_valid), .xon_port(xon_port), .xon_prio(xon_prio),
        .frame_valid(frame_valid), .frame_port(frame_port),
        .frame_class_enable(frame_class_enable), .frame_pause(frame_pause),
        .frame_quanta(frame_quanta), .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset. Sound: the contract defines behaviour after one.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);
    // m_registers_at_reset: software writes only the sticky flags (err, pfc_err); every other
    // word may be read freely.
    always @(*) if (csr_we)
        m_registers_at_reset: assume (csr_addr == `SC_A_ERR || csr_addr == `SC_A_PFC_ERR);
    // m_pfc_idle: the ingress buses are idle. The ingress side is the PFC core itself, whose
    // hysteresis formal/pfc proves; tests/qcn_formal.rs runs that proof on this config's
    // embedded PFC (XOFF = Q_PFC + 1, XON = Q_PFC - H_pfc). With free ingress traffic here the
    // solver takes minutes per step past step 10, for properties of the CP that do not read it.
    always @(*) m_pfc_idle: assume (!in_enq_valid && !in_deq_valid);
    // m_few_addresses: sources and destinations from a 2-bit domain (16 flows). The flow hash
    // is an XOR network over all 64 address bits, which free addresses make the solver's
    // hardest part; two entries and 16 flows still collide, and every width is unchanged.
    always @(*) m_few_addresses: assume (eg_src[31:2] == 0 && eg_dst[31:2] == 0);

    // ---------------------------------------------------------------- arrivals, as the spec sees them
    // Edges since reset (saturating): the CP takes arrivals from edge SC_INIT on.
    reg [GW-1:0] edges = 0;
    always @(posedge clk) edges <= rst ? 0 : (edges == {GW{1'b1}} ? edges : edges + 1);
    wire in_range = eg_port < `SC_PORTS && eg_prio < `SC_PRIOS;
    wire taken = !rst && eg_valid && in_range && edges >= `SC_INIT;
    // Sampled: the testbed's step P_fb = 1 above Q_min.
    wire sampled = taken && eg_qdepth > `SC_Q_MIN;
    wire [KB-1:0] key = {eg_port, eg_prio};

    // Each queue's q_old, and the arrival's Fb6 (§4.3: Fb = (q - Q_eq) + w (q - q_old),
    // clamped at 0, rescaled to 6 bits).
    reg [`SC_DB-1:0] q_old [0:K-1];
    integer i;
    wire signed [31:0] q32 = {{(32-`SC_DB){1'b0}}, eg_qdepth};
    wire signed [31:0] q_old32 = {{(32-`SC_DB){1'b0}}, q_old[key]};
    wire signed [31:0] fb = (q32 - `SC_Q_EQ) + `SC_W * (q32 - q_old32);
    wire [47:0] scaled = ({16'd0, fb} * `SC_FB_M) >> `SC_FB_E;
    wire [5:0] fb6 = fb <= 0 ? 6'd0 : (scaled > 63 ? 6'd63 : scaled[5:0]);
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < K; i = i + 1) q_old[i] <= 0;
        end else if (sampled) begin
            q_old[key] <= eg_qdepth;
        end
    end

    // The arrivals of the last L edges: g_*[j] after edge m is the arrival of edge m - j.
    reg g_sampled [0:L];
    reg [`SC_DB-1:0] g_q [0:L];
    reg [`SC_PB-1:0] g_port [0:L];
    reg [`SC_NB-1:0] g_prio [0:L];
    reg [31:0] g_src [0:L];
    reg [31:0] g_dst [0:L];
    reg [5:0] g_fb [0:L];
    always @(posedge clk) begin
        g_sampled[0] <= sampled;
        g_q[0] <= eg_qdepth;
        g_port[0] <= eg_port;
        g_prio[0] <= eg_prio;
        g_src[0] <= eg_src;
        g_dst[0] <= eg_dst;
        g_fb[0] <= fb6;
        for (i = 1; i <= L; i = i + 1) begin
            g_sampled[i] <= rst ? 1'b0 : g_sampled[i-1];
            g_q[i] <= g_q[i-1];
            g_port[i] <= g_port[i-1];
            g_prio[i] <= g_prio[i-1];
            g_src[i] <= g_src[i-1];
            g_dst[i] <= g_dst[i-1];
            g_fb[i] <= g_fb[i-1];
        end
        if (rst) g_sampled[0] <= 1'b0;
    end

    // ---------------------------------------------------------------- the FBP
    // a_fbp_fields_zero_when_idle: no FBP, no fields.
    always @(*) if (!fbp_valid)
        a_fbp_fields_zero_when_idle: assert (fbp_port == 0 && fbp_prio == 0 && fbp_src == 0
                                             && fbp_dst == 0 && fbp_fb == 0);
`ifndef SC_INDUCTION
    always @(*) if (fbp_valid) begin
        // a_fbp_only_above_q_min: an FBP is for a sampled arrival, L edges before: taken
        // (ready, in range) and deeper than Q_min (§5.2).
`ifdef SC_MUTANT
        // The mutant claims no FBP ever comes: must FAIL.
        a_fbp_only_above_q_min: assert (0);
`else
        a_fbp_only_above_q_min: assert (g_sampled[L] && g_q[L] > `SC_Q_MIN);
`endif
        // a_fbp_names_its_arrival: the FBP goes back to the arrival's source, from its
        // destination, naming its queue (§5.4).
        a_fbp_names_its_arrival: assert (fbp_dst == g_src[L] && fbp_src == g_dst[L]
                                         && fbp_port == g_port[L] && fbp_prio == g_prio[L]);
        // a_fbp_fb_is_the_spec_fb: the FBP carries that arrival's quantised Fb, computed from
        // the spec's q_old (the RTL's forward included).
        a_fbp_fb_is_the_spec_fb: assert (fbp_fb == g_fb[L]);
    end
`endif

    // ---------------------------------------------------------------- the per-flow rate limit
    // One flow the solver picks; the edges since its last FBP (saturating, "never" at reset).
    (* anyconst *) reg [31:0] flow_src;
    (* anyconst *) reg [31:0] flow_dst;
    wire flow_fbp = fbp_valid && fbp_dst == flow_src && fbp_src == flow_dst;
    reg [GW-1:0] since_fbp = {GW{1'b1}};
    always @(posedge clk)
        if (rst) since_fbp <= {GW{1'b1}};
        else if (flow_fbp) since_fbp <= 1;
        else if (since_fbp != {GW{1'b1}}) since_fbp <= since_fbp + 1;
`ifndef SC_INDUCTION
    // a_one_fbp_per_flow_per_t_fb: two FBPs of one flow are at least T_fb apart (§5.4); the
    // FBPs are their arrivals' L edges later, so the spacing is the arrivals'.
    always @(*) if (flow_fbp) a_one_fbp_per_flow_per_t_fb: assert (since_fbp >= `SC_T_FB);
`endif

    // ---------------------------------------------------------------- registers
    // a_csr_read_id: the ID word reads back (the registered read of the CP's bank).
    reg prev_read_id = 0;
    always @(posedge clk) prev_read_id <= !rst && csr_addr == `SC_A_ID;
    always @(*) if (prev_read_id && !rst) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
endmodule
