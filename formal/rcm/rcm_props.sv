// Formal properties of the RCM block, proved with yosys-smtbmc + Bitwuzla by `switchcraft formal`
// (`make formal BLOCK=rcm`, config formal/rcm/rcm_formal.toml). The flow reads the exported
// rtl/rcm/<instance>.v and this file with `read_verilog -formal` and defines the macros below
// from the instance's config and register map:
//   SC_TOP             top module
//   SC_PB, SC_CB       widths of the port fields and of idr_index; SC_DB, SC_LB, SC_FB of the
//                      depths, lengths and flow IDs
//   SC_PORTS, SC_D     ports, CAM entries per port
//   SC_WC_MIN, SC_T_RCF, SC_TS_MASK  Wc's floor, rcf's hold and the timestamp mask at reset
//   SC_TSB, SC_WINDOW_MASK  timestamp width, and the mask of the windows' bytes
//   SC_INIT, SC_SAMPLE_DELAY, SC_PORT_LATENCY  the reset sweep, a sample's delay to the port
//                      stage, the port stage's latency
//   SC_A_<REG>         word index of register <REG>
//
// The properties are a specification written from the spec alone (§4.3-4.6), with ghost state
// fed by the ports: each port's CAM of sampled flow IDs (cyclic, §4.4), its list of IDs
// received in CNs and its rcf with the sweep's ageing (§4.3), which give the flows that are
// harmful at a port. They hold for the registers' reset values: the assumption
// m_registers_at_reset keeps software from rewriting them (run-time writes are the
// co-simulation's), so `port_sel` stays 0 and the port views show port 0. Every arrival of 10
// bytes or more is a sample (the intervals at reset are at most 10 bytes), and m_long_packets
// makes every arrival one. The CSR bus reads one word the solver picks (`watched`), so each
// view is watched on every edge of some run. Assertions inside `ifndef SC_INDUCTION` use ghost
// state not tied to the RTL's registers in an arbitrary starting state: BMC only. A mutant
// (`-DSC_MUTANT`) flips one assertion so the flow can be seen to fail.

module rcm_props (
    input wire clk,
    input wire rst,
    input wire iq_valid,
    input wire [`SC_PB-1:0] iq_port,
    input wire [`SC_PB-1:0] iq_voq,
    input wire [`SC_DB-1:0] iq_qdepth,
    input wire [`SC_LB-1:0] iq_len,
    input wire oq_valid,
    input wire [`SC_PB-1:0] oq_port,
    input wire [`SC_DB-1:0] oq_qdepth,
    input wire [`SC_LB-1:0] oq_len,
    input wire [`SC_FB-1:0] oq_fid,
    input wire sch_valid,
    input wire [`SC_PB-1:0] sch_port,
    input wire [`SC_FB-1:0] sch_fid,
    input wire [`SC_LB-1:0] sch_len,
    input wire sch_alone,
    input wire rt_valid,
    input wire [`SC_PB-1:0] rt_port,
    input wire [`SC_PORTS-1:0] rt_cands,
    input wire [`SC_FB-1:0] rt_fid,
    input wire rt_new,
    input wire cnr_valid,
    input wire [`SC_PB-1:0] cnr_port,
    input wire [5:0] cnr_fbp,
    input wire cni_valid,
    input wire [`SC_PB-1:0] cni_port,
    input wire [`SC_FB-1:0] cni_fid,
    input wire idr_valid,
    input wire [`SC_PB-1:0] idr_port,
    input wire idr_ext,
    input wire [`SC_CB-1:0] idr_index,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam P = 1 << `SC_PB;        // port slots of the ghost state
    localparam D = `SC_D;
    localparam SD = `SC_SAMPLE_DELAY;
    localparam GW = 16;                // ghost counter width

    // ---------------------------------------------------------------- the design under test
    wire dec_valid, dec_grant, dec_harmful, route_valid, route_detour, cn_valid, cn_relay;
    wire id_valid, id_hit;
    wire [`SC_PB-1:0] route_port, cn_port, cn_list;
    wire [5:0] cn_fbp;
    wire [`SC_FB-1:0] id_fid;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .iq_valid(iq_valid), .iq_port(iq_port), .iq_voq(iq_voq), .iq_qdepth(iq_qdepth),
        .iq_len(iq_len),
        .oq_valid(oq_valid), .oq_port(oq_port), .oq_qdepth(oq_qdepth), .oq_len(oq_len),
        .oq_fid(oq_fid),
        .sch_valid(sch_valid), .sch_port(sch_port), .sch_fid(sch_fid), .sch_len(sch_len),
        .sch_alone(sch_alone),
        .rt_valid(rt_valid), .rt_port(rt_port), .rt_cands(rt_cands), .rt_fid(rt_fid),
        .rt_new(rt_new),
        .cnr_valid(cnr_valid), .cnr_port(cnr_port), .cnr_fbp(cnr_fbp),
        .cni_valid(cni_valid), .cni_port(cni_port), .cni_fid(cni_fid),
        .idr_valid(idr_valid), .idr_port(idr_port), .idr_ext(idr_ext), .idr_index(idr_index),
        .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .dec_valid(dec_valid), .dec_grant(dec_grant), .dec_harmful(dec_harmful),
        .route_valid(route_valid), .route_port(route_port), .route_detour(route_detour),
        .cn_valid(cn_valid), .cn_port(cn_port), .cn_fbp(cn_fbp), .cn_list(cn_list),
        .cn_relay(cn_relay),
        .id_valid(id_valid), .id_hit(id_hit), .id_fid(id_fid),
        .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset. Sound: the contract defines behaviour after one.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);
    // m_registers_at_reset: software writes only the sticky flags.
    always @(*) if (csr_we) m_registers_at_reset: assume (csr_addr == `SC_A_ERR);
    // m_long_packets: every arrival is a sample (see the header).
    always @(*) m_long_packets: assume (iq_len >= 10 && oq_len >= 10);
    // m_calm_inputs: the VOQs are idle and an output queue is empty or full (0 or 255 bytes).
    // The samplers' arithmetic (Eq. 1, the quantiser) is the co-simulation's; here it would
    // be the solver's hardest part (minutes per step past step 6 with free depths), for
    // properties that need only which arrivals are samples and their flows. Local congestion
    // still happens (a full queue), and CNs are free.
    always @(*) m_calm_inputs: assume (!iq_valid && (oq_qdepth == 0 || oq_qdepth == 255));
    // m_few_values: flow IDs from a 2-bit domain (4 flows on 2-entry CAMs still collide and
    // overwrite), CN degrees of 0, 32 or 63, and offers of 10 or 15 bytes. The RCC's
    // reductions multiply a 32-bit window by a 17-bit factor; free operands make that product
    // the solver's hardest part, and the properties need only that reductions happen.
    always @(*) m_few_values: assume (oq_fid < 4 && sch_fid < 4 && rt_fid < 4 && cni_fid < 4
                                      && (cnr_fbp == 0 || cnr_fbp == 32 || cnr_fbp == 63)
                                      && (sch_len == 10 || sch_len == 15));
    // m_watched: the bus reads one word the solver picks.
    (* anyconst *) reg [5:0] watched;
    always @(*) m_watched: assume (csr_addr == watched);

    // ---------------------------------------------------------------- ghost: edges, timestamps, visits
    // Edges since reset (the model's `now`, saturating); the timestamp is one cycle, masked.
    reg [GW-1:0] edges = 0;
    always @(posedge clk) edges <= rst ? 0 : (edges == {GW{1'b1}} ? edges : edges + 1);
    wire [31:0] ts = {16'd0, edges} & `SC_TS_MASK;
    wire [`SC_PB-1:0] visit = edges % `SC_PORTS;

    // ---------------------------------------------------------------- ghost: the harmful flows (§4.3, §4.4)
    // Per port: the CAM of sampled IDs, written cyclically by the output queue's samples (their
    // effect comes SD edges after the arrival, after the offers and queries of that edge); the
    // IDs of the last CN received (a header empties them, each ID fills the next entry); rcf,
    // set by a CN and cleared by the port's visit T_rcf after it unless a CN comes on that
    // edge.
    reg cam_v [0:P-1][0:D-1];
    reg [`SC_FB-1:0] cam_d [0:P-1][0:D-1];
    reg [7:0] cam_wp [0:P-1];
    reg ext_v [0:P-1][0:D-1];
    reg [`SC_FB-1:0] ext_d [0:P-1][0:D-1];
    reg [7:0] ext_wp [0:P-1];
    reg rcf [0:P-1];
    reg [31:0] rcf_t [0:P-1];

    // The output-queue arrivals of the last SD edges: a_*[j] after edge m is that of m - j.
    wire taken = !rst && oq_valid && oq_port < `SC_PORTS && edges >= `SC_INIT;
    reg a_taken [1:SD];
    reg [`SC_PB-1:0] a_port [1:SD];
    reg [`SC_FB-1:0] a_fid [1:SD];
    integer i, j;
    always @(posedge clk) begin
        a_taken[1] <= taken;
        a_port[1] <= oq_port;
        a_fid[1] <= oq_fid;
        for (i = 2; i <= SD; i = i + 1) begin
            a_taken[i] <= rst ? 1'b0 : a_taken[i-1];
            a_port[i] <= a_port[i-1];
            a_fid[i] <= a_fid[i-1];
        end
        if (rst) a_taken[1] <= 1'b0;
    end
    // This edge's port stage takes the sample of the arrival SD edges before.
    wire s_valid = a_taken[SD] && !rst;
    wire [`SC_PB-1:0] s_port = a_port[SD];

    // The CN of this edge, as the offers, queries and reads of the edge see it.
    wire hdr = !rst && cnr_valid && cnr_port < `SC_PORTS;
    wire id_in = !rst && cni_valid && cni_port < `SC_PORTS;
    wire [7:0] id_slot = (hdr && cnr_port == cni_port) ? 8'd0 : ext_wp[cni_port];
    function automatic in_ext_now(input [`SC_PB-1:0] p, input [`SC_FB-1:0] f);
        integer k;
        begin
            in_ext_now = 1'b0;
            for (k = 0; k < D; k = k + 1) begin
                if (id_in && cni_port == p && id_slot == k) begin
                    if (cni_fid == f) in_ext_now = 1'b1;
                end else if (!(hdr && cnr_port == p) && ext_v[p][k] && ext_d[p][k] == f) begin
                    in_ext_now = 1'b1;
                end
            end
        end
    endfunction
    function automatic in_cam(input [`SC_PB-1:0] p, input [`SC_FB-1:0] f);
        integer k;
        begin
            in_cam = 1'b0;
            for (k = 0; k < D; k = k + 1)
                if (cam_v[p][k] && cam_d[p][k] == f) in_cam = 1'b1;
        end
    endfunction
    // Harmful at port p for flow f: the root's IDs while rcf holds, the CAM otherwise.
    function automatic harmful(input [`SC_PB-1:0] p, input [`SC_FB-1:0] f);
        begin
            harmful = (rcf[p] || (hdr && cnr_port == p)) ? in_ext_now(p, f) : in_cam(p, f);
        end
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < P; i = i + 1) begin
                for (j = 0; j < D; j = j + 1) begin
                    cam_v[i][j] <= 1'b0;
                    ext_v[i][j] <= 1'b0;
                end
                cam_wp[i] <= 0;
                ext_wp[i] <= 0;
                rcf[i] <= 1'b0;
                rcf_t[i] <= 0;
            end
        end else begin
            if (rcf[visit] && ((ts - rcf_t[visit]) & `SC_TS_MASK) >= `SC_T_RCF)
                rcf[visit] <= 1'b0;
            if (hdr) begin
                rcf[cnr_port] <= 1'b1;
                rcf_t[cnr_port] <= ts;
                for (j = 0; j < D; j = j + 1) ext_v[cnr_port][j] <= 1'b0;
                ext_wp[cnr_port] <= 0;
            end
            if (id_in) begin
                ext_v[cni_port][id_slot] <= 1'b1;
                ext_d[cni_port][id_slot] <= cni_fid;
                ext_wp[cni_port] <= (id_slot + 1) % D;
            end
            if (s_valid) begin
                cam_v[s_port][cam_wp[s_port]] <= 1'b1;
                cam_d[s_port][cam_wp[s_port]] <= a_fid[SD];
                cam_wp[s_port] <= (cam_wp[s_port] + 1) % D;
            end
        end
    end

    // The answers the spec gives for this edge's offer and query, as the outputs show them
    // PORT_LATENCY (1) edge later: r_* after the edge, g_* after the next.
    reg r_dec_ok = 0, r_dec_harmful = 0, g_dec_ok = 0, g_dec_harmful = 0;
    reg r_rt_ok = 0, r_rt_harmful = 0, g_rt_ok = 0, g_rt_harmful = 0;
    reg [`SC_PORTS-1:0] r_rt_cands = 0, g_rt_cands = 0;
    always @(posedge clk) begin
        r_dec_ok <= !rst && sch_valid && sch_port < `SC_PORTS;
        r_dec_harmful <= harmful(sch_port, sch_fid);
        r_rt_ok <= !rst && rt_valid && rt_port < `SC_PORTS;
        r_rt_harmful <= harmful(rt_port, rt_fid);
        r_rt_cands <= rt_cands;
        g_dec_ok <= !rst && r_dec_ok;
        g_dec_harmful <= r_dec_harmful;
        g_rt_ok <= !rst && r_rt_ok;
        g_rt_harmful <= r_rt_harmful;
        g_rt_cands <= r_rt_cands;
    end

    // ---------------------------------------------------------------- CFR and RCC's classifier
`ifndef SC_INDUCTION
    // a_cam_hit_iff_valid_entry: an offered packet is harmful exactly when a valid entry of
    // its port's list holds its flow (the CAM's registered matches, the same-edge CN
    // corrections and the list selection equal the spec's CAM).
    always @(*) if (dec_valid && g_dec_ok)
        a_cam_hit_iff_valid_entry: assert (dec_harmful == g_dec_harmful);
`endif
    // a_held_only_if_harmful: the window holds only harmful packets.
    always @(*) if (dec_valid && !dec_grant) a_held_only_if_harmful: assert (dec_harmful);

    // ---------------------------------------------------------------- SAR
`ifndef SC_INDUCTION
    // a_sar_never_detours_harmful: a detour is for a non-harmful packet, to a candidate.
    always @(*) if (route_valid && route_detour && g_rt_ok) begin
`ifdef SC_MUTANT
        // The mutant claims SAR never detours: must FAIL.
        a_sar_never_detours_harmful: assert (0);
`else
        a_sar_never_detours_harmful: assert (!g_rt_harmful && g_rt_cands[route_port]);
`endif
    end
`endif
    // a_no_detour_without_query: no query, no detour.
    always @(*) if (!route_valid) a_no_detour_without_query: assert (!route_detour);

    // ---------------------------------------------------------------- RCC's window (port 0's view)
    reg prev_read_wc = 0, prev_read_rate = 0;
    always @(posedge clk) begin
        prev_read_wc <= !rst && watched == `SC_A_PORT_WC;
        prev_read_rate <= !rst && watched == `SC_A_PORT_RATE;
    end
`ifndef SC_INDUCTION
    // a_wc_never_below_wc_min: Wc is 0 until the first window, then never below Wc_min. (BMC
    // only: the view shows the register two edges late, so in an arbitrary starting state the
    // induction sees a register the view never showed.)
    always @(*) if (prev_read_wc && !rst)
        a_wc_never_below_wc_min: assert (csr_rdata == 0 || csr_rdata >= `SC_WC_MIN);
`endif

`ifndef SC_INDUCTION
    // a_one_reduction_per_trigger: R changes (a reduction, or a window's start) only with a
    // trigger of its own since the last change: a CN received on port 0, or a sample of port
    // 0's output queue. The view shows the port stage of two edges before, so the triggers
    // are aligned with it (delayed two edges); a reduction uses triggers of earlier edges.
    wire trig_now = (hdr && cnr_port == 0) || (s_valid && s_port == 0);
    reg trig_d1 = 0, trig_d2 = 0, trig_d3 = 0, pending = 0;
    reg [31:0] last_rate = 32'h10000;  // R at reset: the line rate
    always @(posedge clk) begin
        trig_d1 <= !rst && trig_now;
        trig_d2 <= !rst && trig_d1;
        trig_d3 <= !rst && trig_d2;
        if (rst) begin
            pending <= 1'b0;
            last_rate <= 32'h10000;
        end else if (prev_read_rate && csr_rdata != last_rate) begin
            last_rate <= csr_rdata;
            pending <= trig_d3;
        end else begin
            pending <= pending || trig_d3;
        end
    end
    always @(*) if (prev_read_rate && !rst && csr_rdata != last_rate)
        a_one_reduction_per_trigger: assert (pending);
`endif

    // ---------------------------------------------------------------- outputs
    // a_fields_zero_when_idle: no event, no fields.
    always @(*) begin
        if (!cn_valid)
            a_cn_fields_zero_when_idle: assert (cn_port == 0 && cn_fbp == 0 && cn_list == 0
                                                && !cn_relay);
        if (!id_valid) a_id_fields_zero_when_idle: assert (!id_hit && id_fid == 0);
        if (!dec_valid) a_dec_fields_zero_when_idle: assert (!dec_grant && !dec_harmful);
    end

    // ---------------------------------------------------------------- the pipeline is the spec
    // a_visit_registers_are_the_ports: the port stage computes the next visit's operands a
    // cycle early, from the visited port's state as the edge leaves it (forwarding this edge's
    // offer, CNs and triggers: crates/rtl/src/rcm.rs, `k_*`). Each must equal what the visit
    // would compute unpipelined, from the registers of the port it visits in its own cycle:
    // what the reduction keeps, 1 - min(Fb x Gd, 1) of the pending Fb; the multiplicands (Wc,
    // or the harmful bytes while measuring, and R, or 1); the rcf, CN and measurement timer
    // tests against the timestamp. Probes name the two ports of the formal config's registers
    // (the check is skipped for other port counts); not in the cycle after a reset, whose
    // timestamp the reset sweep sets.
    (* keep *) wire [`SC_PB-1:0] r_visit;   // probe: dut.core.r_visit$q
    (* keep *) wire [31:0] r_ts;            // probe: dut.core.r_ts$q
    (* keep *) wire [1:0] rcc0;             // probe: dut.core.rcc$0$q
    (* keep *) wire [1:0] rcc1;             // probe: dut.core.rcc$1$q
    (* keep *) wire [31:0] wc0;             // probe: dut.core.wc$0$q
    (* keep *) wire [31:0] wc1;             // probe: dut.core.wc$1$q
    (* keep *) wire [31:0] sent_c0;         // probe: dut.core.sent_c$0$q
    (* keep *) wire [31:0] sent_c1;         // probe: dut.core.sent_c$1$q
    (* keep *) wire [16:0] rate0;           // probe: dut.core.rate$0$q
    (* keep *) wire [16:0] rate1;           // probe: dut.core.rate$1$q
    (* keep *) wire pend_v0;                // probe: dut.core.pend_v$0$q
    (* keep *) wire pend_v1;                // probe: dut.core.pend_v$1$q
    (* keep *) wire [5:0] pend0;            // probe: dut.core.pend$0$q
    (* keep *) wire [5:0] pend1;            // probe: dut.core.pend$1$q
    (* keep *) wire [31:0] rcf_t0;          // probe: dut.core.rcf_t$0$q
    (* keep *) wire [31:0] rcf_t1;          // probe: dut.core.rcf_t$1$q
    (* keep *) wire [31:0] cn_t0;           // probe: dut.core.cn_t$0$q
    (* keep *) wire [31:0] cn_t1;           // probe: dut.core.cn_t$1$q
    (* keep *) wire [31:0] meas_t0;         // probe: dut.core.meas_t$0$q
    (* keep *) wire [31:0] meas_t1;         // probe: dut.core.meas_t$1$q
    (* keep *) wire [16:0] k_keep;          // probe: dut.core.k_keep$q
    (* keep *) wire [31:0] k_x;             // probe: dut.core.k_x$q
    (* keep *) wire [16:0] k_r;             // probe: dut.core.k_r$q
    (* keep *) wire k_rcf_old;              // probe: dut.core.k_rcf_old$q
    (* keep *) wire k_cn_old;               // probe: dut.core.k_cn_old$q
    (* keep *) wire k_meas_done;            // probe: dut.core.k_meas_done$q
    (* keep *) wire [16:0] r_gd;            // probe: dut.core.csr.r_gd
    (* keep *) wire [`SC_TSB-1:0] r_t_rcf;  // probe: dut.core.csr.r_t_rcf
    (* keep *) wire [`SC_TSB-1:0] r_t_cn;   // probe: dut.core.csr.r_t_cn
    (* keep *) wire [`SC_TSB-1:0] r_t_meas; // probe: dut.core.csr.r_t_meas
    wire v1 = r_visit[0];
    wire [1:0] v_rcc = v1 ? rcc1 : rcc0;
    wire [31:0] v_wc = v1 ? wc1 : wc0;
    wire [31:0] v_sent_c = v1 ? sent_c1 : sent_c0;
    wire [16:0] v_rate = v1 ? rate1 : rate0;
    wire [5:0] v_fb = (v1 ? pend_v1 : pend_v0) ? (v1 ? pend1 : pend0) : 6'd0;
    wire [31:0] v_rcf_t = v1 ? rcf_t1 : rcf_t0;
    wire [31:0] v_cn_t = v1 ? cn_t1 : cn_t0;
    wire [31:0] v_meas_t = v1 ? meas_t1 : meas_t0;
    wire [23:0] v_cut = v_fb * r_gd;
    wire [16:0] v_keep = v_cut >= 24'h10000 ? 17'd0 : 17'h10000 - v_cut[16:0];
    wire measuring = v_rcc == 2'd1;       // Rcc::Measure
    wire [31:0] v_x = (measuring ? v_sent_c : v_wc) & `SC_WINDOW_MASK;
    wire [16:0] v_r = measuring ? 17'h10000 : v_rate;
    reg after_reset = 1'b1;
    always @(posedge clk) after_reset <= rst;
    always @(*) if (`SC_PORTS == 2 && !rst && !after_reset) begin
        a_visit_keep_is_the_ports: assert (k_keep == v_keep);
        a_visit_operands_are_the_ports: assert (k_x == v_x && k_r == v_r);
        a_visit_timers_are_the_ports: assert (
            k_rcf_old == (((r_ts - v_rcf_t) & `SC_TS_MASK) >= r_t_rcf)
            && k_cn_old == (((r_ts - v_cn_t) & `SC_TS_MASK) >= r_t_cn)
            && k_meas_done == (((r_ts - v_meas_t) & `SC_TS_MASK) >= r_t_meas));
    end

    // ---------------------------------------------------------------- registers
    // a_csr_read_id: the ID word reads back.
    reg prev_read_id = 0;
    always @(posedge clk) prev_read_id <= !rst && watched == `SC_A_ID;
    always @(*) if (prev_read_id && !rst) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
endmodule
