// Formal properties of the pfcmac block, proved with yosys-smtbmc + Bitwuzla by `switchcraft
// formal` (`make formal BLOCK=pfcmac`). The flow reads the exported rtl/pfcmac/<instance>.v and
// this file with `read_verilog -formal` and defines the macros below from the instance's config
// and register map:
//   SC_TOP          top module, e.g. pfcmac_tiny_top
//   SC_W, SC_L      AXI-Stream data bits and byte lanes
//   SC_BEATS        beats of a frame; SC_LAST_KEEP the tkeep of its last beat
//   SC_FRAME_BYTES  bytes of a frame on the stream (60, or 64 with the FCS)
//   SC_A_<REG>      word index of register <REG>; SC_ID_WORD the ID register's value
// Probes: a wire marked `// probe: <path>` is connected by the flow, after `flatten`, to the
// internal net <path> of the design under test (rust-hdl's names in the core).
//
// Cycle conventions (crates/model/src/pfcmac.rs): a TX beat shown after edge n is sent on the
// first later edge that samples tx_tready; the verdict on a received frame whose last beat is
// sampled at edge n is applied at edge n+1 (`paused`, `bad_frame` after it).
//
// Assertions are named a_*, assumptions m_*. A mutant (`-DSC_MUTANT`) flips one assertion so
// the flow can be seen to fail.

module pfcmac_props (
    input wire clk,
    input wire rst,
    input wire frame_valid,
    input wire [7:0] frame_class_enable,
    input wire [7:0] frame_pause,
    input wire [15:0] frame_quanta,
    input wire tx_tready,
    input wire rx_tvalid,
    input wire [`SC_W-1:0] rx_tdata,
    input wire [`SC_L-1:0] rx_tkeep,
    input wire rx_tlast,
    input wire rx_tuser,
    input wire csr_we,
    input wire [5:0] csr_addr,
    input wire [31:0] csr_wdata
);
    localparam [`SC_L-1:0] ALL_KEEP = {`SC_L{1'b1}};

    // ---------------------------------------------------------------- the design under test
    wire tx_tvalid, tx_tlast, rx_pfc_valid, bad_frame;
    wire [`SC_W-1:0] tx_tdata;
    wire [`SC_L-1:0] tx_tkeep;
    wire [7:0] paused;
    wire [2:0] rx_pfc_prio;
    wire [15:0] rx_pfc_quanta;
    wire [31:0] csr_rdata;

    `SC_TOP dut (
        .clk(clk), .rst(rst),
        .frame_valid(frame_valid), .frame_class_enable(frame_class_enable),
        .frame_pause(frame_pause), .frame_quanta(frame_quanta), .tx_tready(tx_tready),
        .rx_tvalid(rx_tvalid), .rx_tdata(rx_tdata), .rx_tkeep(rx_tkeep), .rx_tlast(rx_tlast),
        .rx_tuser(rx_tuser), .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .tx_tvalid(tx_tvalid), .tx_tdata(tx_tdata), .tx_tkeep(tx_tkeep), .tx_tlast(tx_tlast),
        .paused(paused), .rx_pfc_valid(rx_pfc_valid), .rx_pfc_prio(rx_pfc_prio),
        .rx_pfc_quanta(rx_pfc_quanta), .bad_frame(bad_frame), .csr_rdata(csr_rdata)
    );

    // ---------------------------------------------------------------- probes
    (* keep *) wire [6:0] beat_q;            // probe: dut.core.beat$q
    (* keep *) wire good;                    // probe: dut.core.good
    (* keep *) wire [511:0] tx_shift;        // probe: dut.core.tx_shift$q
    (* keep *) wire in_fields;               // probe: dut.core.in_fields$q
    (* keep *) wire [15:0] tick;             // probe: dut.core.tick
    (* keep *) wire [15:0] timer0;           // probe: dut.core.timer$0$q
    (* keep *) wire [15:0] timer1;           // probe: dut.core.timer$1$q
    (* keep *) wire [15:0] timer2;           // probe: dut.core.timer$2$q
    (* keep *) wire [15:0] timer3;           // probe: dut.core.timer$3$q
    (* keep *) wire [15:0] timer4;           // probe: dut.core.timer$4$q
    (* keep *) wire [15:0] timer5;           // probe: dut.core.timer$5$q
    (* keep *) wire [15:0] timer6;           // probe: dut.core.timer$6$q
    (* keep *) wire [15:0] timer7;           // probe: dut.core.timer$7$q
    (* keep *) wire [31:0] tx_frames;        // probe: dut.core.tx_frames$q
    (* keep *) wire [31:0] rx_frames;        // probe: dut.core.rx_frames$q
    (* keep *) wire [31:0] rx_bad;           // probe: dut.core.rx_bad$q
    wire [127:0] timers = {timer7, timer6, timer5, timer4, timer3, timer2, timer1, timer0};

    // ---------------------------------------------------------------- assumptions
    // m_reset_first: the run starts in reset. Sound: the contract only defines behaviour after
    // a reset. Induction starts anywhere and needs none.
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) m_reset_first: assume (rst);

    // The previous cycle's values; `past_ok`: there was one and it was not a reset.
    reg past_valid = 1'b0;
    reg prev_rst, prev_tx_tvalid, prev_tx_tready, prev_tx_tlast, prev_good;
    reg [`SC_W-1:0] prev_tx_tdata;
    reg [`SC_L-1:0] prev_tx_tkeep;
    reg [7:0] prev_paused;
    reg [15:0] prev_tick;
    reg [127:0] prev_timers;
    reg [31:0] prev_tx_frames, prev_rx_frames, prev_rx_bad;
    always @(posedge clk) begin
        past_valid <= 1'b1;
        prev_rst <= rst;
        prev_tx_tvalid <= tx_tvalid;
        prev_tx_tready <= tx_tready;
        prev_tx_tlast <= tx_tlast;
        prev_tx_tdata <= tx_tdata;
        prev_tx_tkeep <= tx_tkeep;
        prev_good <= good;
        prev_paused <= paused;
        prev_tick <= tick;
        prev_timers <= timers;
        prev_tx_frames <= tx_frames;
        prev_rx_frames <= rx_frames;
        prev_rx_bad <= rx_bad;
    end
    wire past_ok = past_valid && !prev_rst;

    // ---------------------------------------------------------------- TX: the AXI-Stream master
    // a_tx_stream_stable: a beat shown and not taken stays, unchanged, on the next cycle
    // (AXI4-Stream: TVALID, once high, stays until the handshake, with its payload).
    always @(*) if (past_ok && prev_tx_tvalid && !prev_tx_tready) begin
`ifdef SC_MUTANT
        // The mutant claims no beat is ever shown: must FAIL.
        a_tx_stream_stable: assert (!tx_tvalid);
`else
        a_tx_stream_stable: assert (tx_tvalid && tx_tdata == prev_tx_tdata
                                    && tx_tkeep == prev_tx_tkeep && tx_tlast == prev_tx_tlast);
`endif
    end

    // a_tx_framing: every frame is exactly SC_BEATS beats, full lanes but the last, which has
    // SC_LAST_KEEP and TLAST. `sent` is ghost state: the handshakes since the last TLAST.
    reg [6:0] sent = 7'd0;
    always @(posedge clk)
        if (rst || (tx_tvalid && tx_tready && tx_tlast)) sent <= 7'd0;
        else if (tx_tvalid && tx_tready) sent <= sent + 7'd1;
    always @(*) if (past_ok) begin
        if (tx_tvalid) a_tx_framing: assert (tx_tlast == (sent == `SC_BEATS - 1)
                                            && tx_tkeep == (tx_tlast ? `SC_LAST_KEEP : ALL_KEEP)
                                            && beat_q == sent);
        else a_tx_framing_idle: assert (sent == 7'd0 && tx_tkeep == 0 && !tx_tlast);
    end

    // a_tx_constant_bytes: the bytes every PFC frame has are right in every frame: destination
    // 01-80-C2-00-00-01, EtherType 0x8808, opcode 0x0101, the reserved byte 16 and the padding
    // (bytes 34 to 59) zero. `frame_byte_ok`: byte `b` at frame position `pos` (0..63) is one
    // of those, or another byte (a field, or the FCS when pos >= 60 and `fcs_zero` is clear).
    function automatic frame_byte_ok(input integer pos, input [7:0] b, input fcs_zero);
        case (pos)
            0: frame_byte_ok = b == 8'h01;
            1: frame_byte_ok = b == 8'h80;
            2: frame_byte_ok = b == 8'hC2;
            3: frame_byte_ok = b == 8'h00;
            4: frame_byte_ok = b == 8'h00;
            5: frame_byte_ok = b == 8'h01;
            12: frame_byte_ok = b == 8'h88;
            13: frame_byte_ok = b == 8'h08;
            14: frame_byte_ok = b == 8'h01;
            15: frame_byte_ok = b == 8'h01;
            16: frame_byte_ok = b == 8'h00;
            default: frame_byte_ok = pos < 34 || (pos >= 60 && !fcs_zero) || b == 8'h00;
        endcase
    endfunction
    function automatic constant_bytes_ok(input [6:0] beat, input [`SC_W-1:0] data,
                                         input [`SC_L-1:0] keep);
        integer lane, pos;
        begin
            constant_bytes_ok = 1'b1;
            for (lane = 0; lane < `SC_L; lane = lane + 1) begin
                pos = beat * `SC_L + lane;
                if (keep[lane] && pos < 64)
                    constant_bytes_ok = constant_bytes_ok
                                        && frame_byte_ok(pos, data[8 * lane +: 8], 1'b0);
            end
        end
    endfunction
    always @(*) if (past_ok && tx_tvalid)
        a_tx_constant_bytes: assert (constant_bytes_ok(sent, tx_tdata, tx_tkeep));

    // a_tx_frame_ahead: the frame still to be shown is in the shift register (byte k is the
    // frame's byte beat * L + k): its constant bytes right and, from byte 34 to the FCS's end,
    // zeros, so the FCS beats show the FCS alone. `in_fields`: the beat shown holds a field
    // byte (the CRC takes it). Both make the stream's properties inductive.
    localparam integer FIELD_BEATS = (34 + `SC_L - 1) / `SC_L;
    function automatic frame_ahead_ok(input [6:0] beat, input [511:0] shift);
        integer k, pos;
        begin
            frame_ahead_ok = 1'b1;
            for (k = 0; k < 64; k = k + 1) begin
                pos = beat * `SC_L + k;
                if (pos < 64)
                    frame_ahead_ok = frame_ahead_ok && frame_byte_ok(pos, shift[8 * k +: 8], 1'b1);
            end
        end
    endfunction
    always @(*) if (past_ok && tx_tvalid) begin
        a_tx_beat_in_frame: assert (sent < `SC_BEATS);
        a_tx_frame_ahead: assert (frame_ahead_ok(sent, tx_shift));
        a_tx_in_fields: assert (in_fields == (sent < FIELD_BEATS));
    end

    // ---------------------------------------------------------------- RX: pause state
    // a_pause_rises_only_by_good_frame: a class becomes paused only on the edge that applies a
    // good frame's verdict; in particular a bad frame (bad_frame after that edge) pauses none.
    wire [7:0] rises = paused & ~prev_paused;
    wire [7:0] falls = ~paused & prev_paused;
    always @(*) if (past_ok) begin
        if (rises != 0) a_pause_rises_only_by_good_frame: assert (prev_good);
        if (bad_frame) a_bad_frame_pauses_nothing: assert (rises == 0);
    end

    // a_pause_falls_by_resume_or_expiry: a paused class is released only by a good frame (its
    // RESUME) or by its timer running out on that edge (timer <= the edge's whole quanta).
    integer c;
    reg falls_ok;
    always @(*) begin
        falls_ok = 1'b1;
        for (c = 0; c < 8; c = c + 1)
            if (falls[c] && !prev_good && prev_timers[16 * c +: 16] > prev_tick) falls_ok = 1'b0;
    end
    always @(*) if (past_ok) a_pause_falls_by_resume_or_expiry: assert (falls_ok);

    // ---------------------------------------------------------------- counters and registers
    // a_counters_saturate: a counter at 2^32 - 1 stays there (never wraps to 0).
    always @(*) if (past_ok) begin
        if (prev_tx_frames == 32'hffff_ffff) a_tx_frames_saturate: assert (tx_frames == 32'hffff_ffff);
        if (prev_rx_frames == 32'hffff_ffff) a_rx_frames_saturate: assert (rx_frames == 32'hffff_ffff);
        if (prev_rx_bad == 32'hffff_ffff) a_rx_bad_saturates: assert (rx_bad == 32'hffff_ffff);
    end

    // a_csr_read_id: the ID word reads back.
    reg prev_read_id = 0;
    always @(posedge clk) prev_read_id <= !rst && csr_addr == `SC_A_ID;
    always @(*) if (prev_read_id && !rst) a_csr_read_id: assert (csr_rdata == `SC_ID_WORD);
endmodule
