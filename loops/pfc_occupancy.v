// Hand-written; not generated. The recurrence of PFC's occupancy, alone, in three forms, to
// measure how fast a one-cycle loop of it can run on each device (`switchcraft synth --loops`,
// report docs/reports/loops.md; the forms are checked against the golden model by
// tests/pfc_loops.rs).
//
// The loop: every cycle a dequeue (clamped at 0) and then an enqueue (dropped if the sum would
// exceed max) on one key, each result the next event's operand: the worst case PFC's contract
// must sustain at II = 1 (back-to-back events on one key). Everything that does not depend on
// the loop's own value is computed before it, in two input stages, as the blocks do
// (crates/rtl/src/pfc/occupancy_update.rs): room_same = max - e_len + d_len, delta =
// e_len - d_len, e_len_only = e_len unless e_len alone exceeds max. What is left in the loop is
// one carry chain per test or sum, and the selection of the result.
//
// Counter width W and length width L default to the `fpga` preset's (16 and 11 bits); the
// modules named `..._paper` at the end are the same forms at the `paper` preset's (24 and 14).
//
//   pfc_occupancy_loop_bare         one key and nothing else: the operand is the loop register.
//   pfc_occupancy_loop_select       the operand is the loop register when the event's key is the
//                                   last event's (same_as_last), else the value looked up for
//                                   its key (looked_up): the form of a block that keeps many keys
//                                   in a memory, with a 2:1 multiplexer in front of the chains.
//   pfc_occupancy_loop_speculated   the same function, the result from the looked-up value
//                                   computed a stage early (it does not depend on the loop) and
//                                   the loop's chains fed by the loop register alone: no
//                                   multiplexer in front of the chains, one behind them.
//
// Ports: inputs are sampled at edge n (the first input stage); the second input stage takes
// them at edge n + 1 and the loop register at edge n + 2 (n + 3 in the speculated form, which
// has a third stage), after which occ, drop and underflow show the event's result.

// Several modules in one file, by design (one file per loop).
/* verilator lint_off DECLFILENAME */

// The two input stages shared by the three forms: the events registered, then what the loop
// compares with and adds, from the lengths and max alone (not in the loop).
module pfc_occupancy_loop_inputs #(parameter W = 16, parameter L = 11) (
    input  wire         clk,
    input  wire [L-1:0] e_len,
    input  wire [L-1:0] d_len,
    input  wire [W-1:0] max,
    input  wire         same_as_last,
    input  wire [W-1:0] looked_up,
    output reg  [L-1:0] b_d_len,
    output reg  [W:0]   b_room_same,
    output reg  [W-1:0] b_delta,
    output reg  [W-1:0] b_e_len_only,
    output reg          b_len_over_max,
    output reg          b_same,
    output reg  [W-1:0] b_looked_up
);
    reg [L-1:0] a_e_len, a_d_len;
    reg [W-1:0] a_max, a_looked_up;
    reg         a_same;
    wire [W:0]  e_len_w = {{(W+1-L){1'b0}}, a_e_len};
    wire [W:0]  d_len_w = {{(W+1-L){1'b0}}, a_d_len};
    wire        over = e_len_w > {1'b0, a_max};
    always @(posedge clk) begin
        a_e_len <= e_len;
        a_d_len <= d_len;
        a_max <= max;
        a_same <= same_as_last;
        a_looked_up <= looked_up;
        b_d_len <= a_d_len;
        // Used only when e_len <= max: then max - e_len + d_len fits W + 1 bits.
        b_room_same <= {1'b0, a_max} - e_len_w + d_len_w;
        b_delta <= e_len_w[W-1:0] - d_len_w[W-1:0];
        b_e_len_only <= over ? {W{1'b0}} : {{(W-L){1'b0}}, a_e_len};
        b_len_over_max <= over;
        b_same <= a_same;
        b_looked_up <= a_looked_up;
    end
endmodule

module pfc_occupancy_loop_bare #(parameter W = 16, parameter L = 11) (
    input  wire         clk,
    input  wire         rst,
    input  wire [L-1:0] e_len,
    input  wire [L-1:0] d_len,
    input  wire [W-1:0] max,
    output reg  [W-1:0] occ,
    output reg          drop,
    output reg          underflow
);
    // One key: no other source, so the input stage's source fields are constant and unused.
    wire          same_as_last = 1'b1;
    wire [W-1:0]  looked_up = {W{1'b0}};
    wire [L-1:0] b_d_len;
    wire [W:0]   b_room_same;
    wire [W-1:0] b_delta, b_e_len_only;
    wire         b_len_over_max;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [W-1:0] b_looked_up;
    wire         b_same;
    /* verilator lint_on UNUSEDSIGNAL */
    pfc_occupancy_loop_inputs #(.W(W), .L(L)) inputs (
        .clk(clk), .e_len(e_len), .d_len(d_len), .max(max), .same_as_last(same_as_last),
        .looked_up(looked_up), .b_d_len(b_d_len), .b_room_same(b_room_same), .b_delta(b_delta),
        .b_e_len_only(b_e_len_only), .b_len_over_max(b_len_over_max), .b_same(b_same),
        .b_looked_up(b_looked_up)
    );

    wire [W-1:0] b = occ;
    wire uf = {{(W-L){1'b0}}, b_d_len} > b;
    wire ov = b_len_over_max | ({1'b0, b} > b_room_same);
    always @(posedge clk) begin
        if (rst) begin
            occ <= {W{1'b0}};
            drop <= 1'b0;
            underflow <= 1'b0;
        end else begin
            occ <= uf ? b_e_len_only : (ov ? b - {{(W-L){1'b0}}, b_d_len} : b + b_delta);
            drop <= uf ? b_len_over_max : ov;
            underflow <= uf;
        end
    end
endmodule

module pfc_occupancy_loop_select #(parameter W = 16, parameter L = 11) (
    input  wire         clk,
    input  wire         rst,
    input  wire [L-1:0] e_len,
    input  wire [L-1:0] d_len,
    input  wire [W-1:0] max,
    input  wire         same_as_last,
    input  wire [W-1:0] looked_up,
    output reg  [W-1:0] occ,
    output reg          drop,
    output reg          underflow
);
    wire [L-1:0] b_d_len;
    wire [W:0]   b_room_same;
    wire [W-1:0] b_delta, b_e_len_only, b_looked_up;
    wire         b_len_over_max, b_same;
    pfc_occupancy_loop_inputs #(.W(W), .L(L)) inputs (
        .clk(clk), .e_len(e_len), .d_len(d_len), .max(max), .same_as_last(same_as_last),
        .looked_up(looked_up), .b_d_len(b_d_len), .b_room_same(b_room_same), .b_delta(b_delta),
        .b_e_len_only(b_e_len_only), .b_len_over_max(b_len_over_max), .b_same(b_same),
        .b_looked_up(b_looked_up)
    );

    wire [W-1:0] b = b_same ? occ : b_looked_up;
    wire uf = {{(W-L){1'b0}}, b_d_len} > b;
    wire ov = b_len_over_max | ({1'b0, b} > b_room_same);
    always @(posedge clk) begin
        if (rst) begin
            occ <= {W{1'b0}};
            drop <= 1'b0;
            underflow <= 1'b0;
        end else begin
            occ <= uf ? b_e_len_only : (ov ? b - {{(W-L){1'b0}}, b_d_len} : b + b_delta);
            drop <= uf ? b_len_over_max : ov;
            underflow <= uf;
        end
    end
endmodule

module pfc_occupancy_loop_speculated #(parameter W = 16, parameter L = 11) (
    input  wire         clk,
    input  wire         rst,
    input  wire [L-1:0] e_len,
    input  wire [L-1:0] d_len,
    input  wire [W-1:0] max,
    input  wire         same_as_last,
    input  wire [W-1:0] looked_up,
    output reg  [W-1:0] occ,
    output reg          drop,
    output reg          underflow
);
    wire [L-1:0] b_d_len;
    wire [W:0]   b_room_same;
    wire [W-1:0] b_delta, b_e_len_only, b_looked_up;
    wire         b_len_over_max, b_same;
    pfc_occupancy_loop_inputs #(.W(W), .L(L)) inputs (
        .clk(clk), .e_len(e_len), .d_len(d_len), .max(max), .same_as_last(same_as_last),
        .looked_up(looked_up), .b_d_len(b_d_len), .b_room_same(b_room_same), .b_delta(b_delta),
        .b_e_len_only(b_e_len_only), .b_len_over_max(b_len_over_max), .b_same(b_same),
        .b_looked_up(b_looked_up)
    );

    // Off the loop, one stage early: the result from the looked-up value, which does not
    // depend on the loop (a third input stage), and the operands of the loop side.
    reg [L-1:0] c_d_len;
    reg [W:0]   c_room_same;
    reg [W-1:0] c_delta, c_e_len_only, c_r_l;
    reg         c_len_over_max, c_same, c_drop_l, c_uf_l;
    wire uf_l = {{(W-L){1'b0}}, b_d_len} > b_looked_up;
    wire ov_l = b_len_over_max | ({1'b0, b_looked_up} > b_room_same);
    always @(posedge clk) begin
        c_d_len <= b_d_len;
        c_room_same <= b_room_same;
        c_delta <= b_delta;
        c_e_len_only <= b_e_len_only;
        c_len_over_max <= b_len_over_max;
        c_same <= b_same;
        c_r_l <= uf_l ? b_e_len_only
               : (ov_l ? b_looked_up - {{(W-L){1'b0}}, b_d_len} : b_looked_up + b_delta);
        c_drop_l <= uf_l ? b_len_over_max : ov_l;
        c_uf_l <= uf_l;
    end
    // The loop: chains from the loop register only, then the choice of source.
    wire uf_o = {{(W-L){1'b0}}, c_d_len} > occ;
    wire ov_o = c_len_over_max | ({1'b0, occ} > c_room_same);
    wire [W-1:0] r_o = uf_o ? c_e_len_only
                     : (ov_o ? occ - {{(W-L){1'b0}}, c_d_len} : occ + c_delta);
    always @(posedge clk) begin
        if (rst) begin
            occ <= {W{1'b0}};
            drop <= 1'b0;
            underflow <= 1'b0;
        end else begin
            occ <= c_same ? r_o : c_r_l;
            drop <= c_same ? (uf_o ? c_len_over_max : ov_o) : c_drop_l;
            underflow <= c_same ? uf_o : c_uf_l;
        end
    end
endmodule

// The same three forms at the `paper` preset's widths (24-bit counters, 14-bit lengths).

module pfc_occupancy_loop_bare_paper (
    input  wire        clk,
    input  wire        rst,
    input  wire [13:0] e_len,
    input  wire [13:0] d_len,
    input  wire [23:0] max,
    output wire [23:0] occ,
    output wire        drop,
    output wire        underflow
);
    pfc_occupancy_loop_bare #(.W(24), .L(14)) kernel (
        .clk(clk), .rst(rst), .e_len(e_len), .d_len(d_len), .max(max), .occ(occ), .drop(drop),
        .underflow(underflow)
    );
endmodule

module pfc_occupancy_loop_select_paper (
    input  wire        clk,
    input  wire        rst,
    input  wire [13:0] e_len,
    input  wire [13:0] d_len,
    input  wire [23:0] max,
    input  wire        same_as_last,
    input  wire [23:0] looked_up,
    output wire [23:0] occ,
    output wire        drop,
    output wire        underflow
);
    pfc_occupancy_loop_select #(.W(24), .L(14)) kernel (
        .clk(clk), .rst(rst), .e_len(e_len), .d_len(d_len), .max(max),
        .same_as_last(same_as_last), .looked_up(looked_up), .occ(occ), .drop(drop),
        .underflow(underflow)
    );
endmodule

module pfc_occupancy_loop_speculated_paper (
    input  wire        clk,
    input  wire        rst,
    input  wire [13:0] e_len,
    input  wire [13:0] d_len,
    input  wire [23:0] max,
    input  wire        same_as_last,
    input  wire [23:0] looked_up,
    output wire [23:0] occ,
    output wire        drop,
    output wire        underflow
);
    pfc_occupancy_loop_speculated #(.W(24), .L(14)) kernel (
        .clk(clk), .rst(rst), .e_len(e_len), .d_len(d_len), .max(max),
        .same_as_last(same_as_last), .looked_up(looked_up), .occ(occ), .drop(drop),
        .underflow(underflow)
    );
endmodule
