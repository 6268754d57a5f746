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

// ------------------------------------------------------------------------------------------
// Two buses, as PFC has them: every cycle an enqueue and a dequeue, each on any of 2^KB keys,
// both on one key (a pair: dequeue, then enqueue) or apart. The last cycle's two results are
// the loop registers (w_e: the enqueue's, or the pair's; w_d: the dequeue's), and an operand
// comes from w_e, from w_d or from the memory (e_looked_up, d_looked_up: the key's value
// before the last cycle's events, which the memory of a block holds by then). Which one is
// decided in the input stages from the keys alone: three sources per operand, where the
// one-bus kernels have two.
//
//   pfc_occupancy_loop_two_bus_select       the operand chosen (AND-OR of three) before the
//                                           carry chains.
//   pfc_occupancy_loop_two_bus_speculated   the chains from w_e and from w_d, the memory's
//                                           result a stage early, chosen after the chains.
//   pfc_occupancy_loop_two_bus_forwarded    the choice moved to the end of the last cycle:
//                                           each operand register is loaded with what the
//                                           next event needs (a result of this cycle or the
//                                           memory's value), so the chains start at it; the
//                                           choice merges with the result's selection.
//
// Outputs: e_occ and e_drop (enqueue's key after the edge; with a pair, after both), d_occ
// and d_underflow (dequeue's key after its dequeue). They matter for valid events only.
// Latency: 2 edges to the loop registers (select, forwarded), 3 (speculated).

// The input stages of the two-bus forms: the events and the bounds, and for each operand
// whether the last cycle's enqueue (or pair) or dequeue wrote its key.
module pfc_occupancy_loop_two_bus_inputs #(parameter W = 16, parameter L = 11, parameter KB = 2) (
    input  wire          clk,
    input  wire          e_valid,
    input  wire [KB-1:0] e_key,
    input  wire [L-1:0]  e_len,
    input  wire          d_valid,
    input  wire [KB-1:0] d_key,
    input  wire [L-1:0]  d_len,
    input  wire [W-1:0]  max,
    input  wire [W-1:0]  e_looked_up,
    input  wire [W-1:0]  d_looked_up,
    output reg  [L-1:0]  b_e_len,
    output reg  [L-1:0]  b_d_len,
    output reg  [W:0]    b_room,
    output reg  [W:0]    b_room_same,
    output reg  [W-1:0]  b_delta,
    output reg  [W-1:0]  b_e_len_only,
    output reg           b_len_over_max,
    output reg           b_same,
    output reg           b_e_hit_we,
    output reg           b_e_hit_wd,
    output reg           b_d_hit_we,
    output reg           b_d_hit_wd,
    output reg  [W-1:0]  b_e_looked_up,
    output reg  [W-1:0]  b_d_looked_up
);
    reg [L-1:0]  a_e_len, a_d_len;
    reg [W-1:0]  a_max, a_e_looked_up, a_d_looked_up;
    reg [KB-1:0] a_e_key, a_d_key, b_e_key, b_d_key;
    reg          a_e_valid, a_d_valid, b_e_valid, b_d_valid;
    wire [W:0]   e_len_w = {{(W+1-L){1'b0}}, a_e_len};
    wire [W:0]   d_len_w = {{(W+1-L){1'b0}}, a_d_len};
    wire         over = e_len_w > {1'b0, a_max};
    wire         a_same = a_e_valid & a_d_valid & (a_e_key == a_d_key);
    // The last cycle's enqueue lane holds a pair's result, and the enqueue lane wins: after a
    // pair (both keys equal) the dequeue lane's intermediate result is never taken.
    wire         e_hit_we = b_e_valid & (a_e_key == b_e_key);
    wire         d_hit_we = b_e_valid & (a_d_key == b_e_key);
    wire         e_hit_wd = ~e_hit_we & b_d_valid & (a_e_key == b_d_key);
    wire         d_hit_wd = ~d_hit_we & b_d_valid & (a_d_key == b_d_key);
    always @(posedge clk) begin
        a_e_valid <= e_valid;
        a_e_key <= e_key;
        a_e_len <= e_len;
        a_d_valid <= d_valid;
        a_d_key <= d_key;
        a_d_len <= d_len;
        a_max <= max;
        a_e_looked_up <= e_looked_up;
        a_d_looked_up <= d_looked_up;
        b_e_valid <= a_e_valid;
        b_e_key <= a_e_key;
        b_d_valid <= a_d_valid;
        b_d_key <= a_d_key;
        b_e_len <= a_e_len;
        b_d_len <= a_d_len;
        // Used only when e_len <= max.
        b_room <= {1'b0, a_max} - e_len_w;
        b_room_same <= {1'b0, a_max} - e_len_w + d_len_w;
        b_delta <= e_len_w[W-1:0] - d_len_w[W-1:0];
        b_e_len_only <= over ? {W{1'b0}} : e_len_w[W-1:0];
        b_len_over_max <= over;
        b_same <= a_same;
        b_e_hit_we <= e_hit_we;
        b_e_hit_wd <= e_hit_wd;
        b_d_hit_we <= d_hit_we;
        b_d_hit_wd <= d_hit_wd;
        b_e_looked_up <= a_e_looked_up;
        b_d_looked_up <= a_d_looked_up;
    end
endmodule

module pfc_occupancy_loop_two_bus_select #(parameter W = 16, parameter L = 11, parameter KB = 2) (
    input  wire          clk,
    input  wire          rst,
    input  wire          e_valid,
    input  wire [KB-1:0] e_key,
    input  wire [L-1:0]  e_len,
    input  wire          d_valid,
    input  wire [KB-1:0] d_key,
    input  wire [L-1:0]  d_len,
    input  wire [W-1:0]  max,
    input  wire [W-1:0]  e_looked_up,
    input  wire [W-1:0]  d_looked_up,
    output reg  [W-1:0]  e_occ,
    output reg           e_drop,
    output reg  [W-1:0]  d_occ,
    output reg           d_underflow
);
    wire [L-1:0] b_e_len, b_d_len;
    wire [W:0]   b_room, b_room_same;
    wire [W-1:0] b_delta, b_e_len_only, b_e_looked_up, b_d_looked_up;
    wire         b_len_over_max, b_same, b_e_hit_we, b_e_hit_wd, b_d_hit_we, b_d_hit_wd;
    pfc_occupancy_loop_two_bus_inputs #(.W(W), .L(L), .KB(KB)) inputs (
        .clk(clk), .e_valid(e_valid), .e_key(e_key), .e_len(e_len), .d_valid(d_valid),
        .d_key(d_key), .d_len(d_len), .max(max), .e_looked_up(e_looked_up),
        .d_looked_up(d_looked_up), .b_e_len(b_e_len), .b_d_len(b_d_len), .b_room(b_room),
        .b_room_same(b_room_same), .b_delta(b_delta), .b_e_len_only(b_e_len_only),
        .b_len_over_max(b_len_over_max), .b_same(b_same), .b_e_hit_we(b_e_hit_we),
        .b_e_hit_wd(b_e_hit_wd), .b_d_hit_we(b_d_hit_we), .b_d_hit_wd(b_d_hit_wd),
        .b_e_looked_up(b_e_looked_up), .b_d_looked_up(b_d_looked_up)
    );
    // The loop registers are the outputs.
    wire [W-1:0] e_b = ({W{b_e_hit_we}} & e_occ) | ({W{b_e_hit_wd}} & d_occ)
                     | ({W{~b_e_hit_we & ~b_e_hit_wd}} & b_e_looked_up);
    wire [W-1:0] d_b = ({W{b_d_hit_we}} & e_occ) | ({W{b_d_hit_wd}} & d_occ)
                     | ({W{~b_d_hit_we & ~b_d_hit_wd}} & b_d_looked_up);
    wire [W-1:0] d_len_w = {{(W-L){1'b0}}, b_d_len};
    wire uf = d_len_w > d_b;
    wire [W-1:0] diff = d_b - d_len_w;
    wire ov_same = b_len_over_max | ({1'b0, d_b} > b_room_same);
    wire ov_e = b_len_over_max | ({1'b0, e_b} > b_room);
    always @(posedge clk) begin
        if (rst) begin
            e_occ <= {W{1'b0}};
            e_drop <= 1'b0;
            d_occ <= {W{1'b0}};
            d_underflow <= 1'b0;
        end else begin
            if (b_same) begin
                e_occ <= uf ? b_e_len_only : (ov_same ? diff : d_b + b_delta);
                e_drop <= uf ? b_len_over_max : ov_same;
            end else begin
                e_occ <= ov_e ? e_b : e_b + {{(W-L){1'b0}}, b_e_len};
                e_drop <= ov_e;
            end
            d_occ <= uf ? {W{1'b0}} : diff;
            d_underflow <= uf;
        end
    end
endmodule

module pfc_occupancy_loop_two_bus_speculated #(parameter W = 16, parameter L = 11, parameter KB = 2) (
    input  wire          clk,
    input  wire          rst,
    input  wire          e_valid,
    input  wire [KB-1:0] e_key,
    input  wire [L-1:0]  e_len,
    input  wire          d_valid,
    input  wire [KB-1:0] d_key,
    input  wire [L-1:0]  d_len,
    input  wire [W-1:0]  max,
    input  wire [W-1:0]  e_looked_up,
    input  wire [W-1:0]  d_looked_up,
    output reg  [W-1:0]  e_occ,
    output reg           e_drop,
    output reg  [W-1:0]  d_occ,
    output reg           d_underflow
);
    wire [L-1:0] b_e_len, b_d_len;
    wire [W:0]   b_room, b_room_same;
    wire [W-1:0] b_delta, b_e_len_only, b_e_looked_up, b_d_looked_up;
    wire         b_len_over_max, b_same, b_e_hit_we, b_e_hit_wd, b_d_hit_we, b_d_hit_wd;
    pfc_occupancy_loop_two_bus_inputs #(.W(W), .L(L), .KB(KB)) inputs (
        .clk(clk), .e_valid(e_valid), .e_key(e_key), .e_len(e_len), .d_valid(d_valid),
        .d_key(d_key), .d_len(d_len), .max(max), .e_looked_up(e_looked_up),
        .d_looked_up(d_looked_up), .b_e_len(b_e_len), .b_d_len(b_d_len), .b_room(b_room),
        .b_room_same(b_room_same), .b_delta(b_delta), .b_e_len_only(b_e_len_only),
        .b_len_over_max(b_len_over_max), .b_same(b_same), .b_e_hit_we(b_e_hit_we),
        .b_e_hit_wd(b_e_hit_wd), .b_d_hit_we(b_d_hit_we), .b_d_hit_wd(b_d_hit_wd),
        .b_e_looked_up(b_e_looked_up), .b_d_looked_up(b_d_looked_up)
    );
    wire [W-1:0] b_d_len_w = {{(W-L){1'b0}}, b_d_len};
    wire [W-1:0] b_e_len_w = {{(W-L){1'b0}}, b_e_len};
    // Off the loop, a stage early: every result from the memory's values, and the operands of
    // the loop side.
    wire m_uf = b_d_len_w > b_d_looked_up;
    wire [W-1:0] m_diff = b_d_looked_up - b_d_len_w;
    wire m_ov_same = b_len_over_max | ({1'b0, b_d_looked_up} > b_room_same);
    wire m_ov_e = b_len_over_max | ({1'b0, b_e_looked_up} > b_room);
    reg [W-1:0] c_d_len, c_e_len, c_delta, c_e_len_only;
    reg [W:0]   c_room, c_room_same;
    reg         c_len_over_max, c_same, c_e_hit_we, c_e_hit_wd, c_d_hit_we, c_d_hit_wd;
    reg [W-1:0] c_m_pair, c_m_e, c_m_d;
    reg         c_m_pair_drop, c_m_e_drop, c_m_uf;
    always @(posedge clk) begin
        c_d_len <= b_d_len_w;
        c_e_len <= b_e_len_w;
        c_delta <= b_delta;
        c_e_len_only <= b_e_len_only;
        c_room <= b_room;
        c_room_same <= b_room_same;
        c_len_over_max <= b_len_over_max;
        c_same <= b_same;
        c_e_hit_we <= b_e_hit_we;
        c_e_hit_wd <= b_e_hit_wd;
        c_d_hit_we <= b_d_hit_we;
        c_d_hit_wd <= b_d_hit_wd;
        c_m_pair <= m_uf ? b_e_len_only : (m_ov_same ? m_diff : b_d_looked_up + b_delta);
        c_m_pair_drop <= m_uf ? b_len_over_max : m_ov_same;
        c_m_e <= m_ov_e ? b_e_looked_up : b_e_looked_up + b_e_len_w;
        c_m_e_drop <= m_ov_e;
        c_m_d <= m_uf ? {W{1'b0}} : m_diff;
        c_m_uf <= m_uf;
    end
    // The loop: the chains from each loop register.
    wire uf_we = c_d_len > e_occ;
    wire uf_wd = c_d_len > d_occ;
    wire [W-1:0] diff_we = e_occ - c_d_len;
    wire [W-1:0] diff_wd = d_occ - c_d_len;
    wire ovs_we = c_len_over_max | ({1'b0, e_occ} > c_room_same);
    wire ovs_wd = c_len_over_max | ({1'b0, d_occ} > c_room_same);
    wire ove_we = c_len_over_max | ({1'b0, e_occ} > c_room);
    wire ove_wd = c_len_over_max | ({1'b0, d_occ} > c_room);
    wire [W-1:0] pair_we = uf_we ? c_e_len_only : (ovs_we ? diff_we : e_occ + c_delta);
    wire [W-1:0] pair_wd = uf_wd ? c_e_len_only : (ovs_wd ? diff_wd : d_occ + c_delta);
    wire [W-1:0] e_we = ove_we ? e_occ : e_occ + c_e_len;
    wire [W-1:0] e_wd = ove_wd ? d_occ : d_occ + c_e_len;
    always @(posedge clk) begin
        if (rst) begin
            e_occ <= {W{1'b0}};
            e_drop <= 1'b0;
            d_occ <= {W{1'b0}};
            d_underflow <= 1'b0;
        end else begin
            if (c_same) begin
                e_occ <= c_d_hit_we ? pair_we : (c_d_hit_wd ? pair_wd : c_m_pair);
                e_drop <= c_d_hit_we ? (uf_we ? c_len_over_max : ovs_we)
                        : (c_d_hit_wd ? (uf_wd ? c_len_over_max : ovs_wd) : c_m_pair_drop);
            end else begin
                e_occ <= c_e_hit_we ? e_we : (c_e_hit_wd ? e_wd : c_m_e);
                e_drop <= c_e_hit_we ? ove_we : (c_e_hit_wd ? ove_wd : c_m_e_drop);
            end
            d_occ <= c_d_hit_we ? (uf_we ? {W{1'b0}} : diff_we)
                   : (c_d_hit_wd ? (uf_wd ? {W{1'b0}} : diff_wd) : c_m_d);
            d_underflow <= c_d_hit_we ? uf_we : (c_d_hit_wd ? uf_wd : c_m_uf);
        end
    end
endmodule

module pfc_occupancy_loop_two_bus_forwarded #(parameter W = 16, parameter L = 11, parameter KB = 2) (
    input  wire          clk,
    input  wire          rst,
    input  wire          e_valid,
    input  wire [KB-1:0] e_key,
    input  wire [L-1:0]  e_len,
    input  wire          d_valid,
    input  wire [KB-1:0] d_key,
    input  wire [L-1:0]  d_len,
    input  wire [W-1:0]  max,
    input  wire [W-1:0]  e_looked_up,
    input  wire [W-1:0]  d_looked_up,
    output reg  [W-1:0]  e_occ,
    output reg           e_drop,
    output reg  [W-1:0]  d_occ,
    output reg           d_underflow
);
    // Stage a: the events of edge n. Stage b: the events of edge n - 1, with their bounds.
    reg [L-1:0]  a_e_len, a_d_len;
    reg [W-1:0]  a_max, a_e_looked_up, a_d_looked_up;
    reg [KB-1:0] a_e_key, a_d_key, b_e_key, b_d_key;
    reg          a_e_valid, a_d_valid, b_e_valid, b_d_valid;
    reg [W-1:0]  b_e_len, b_d_len, b_delta, b_e_len_only;
    reg [W:0]    b_room, b_room_same;
    reg          b_len_over_max, b_same;
    // The operands of stage b's events: loaded at the edge that loads b.
    reg [W-1:0]  op_e, op_d;
    wire [W:0]   e_len_w = {{(W+1-L){1'b0}}, a_e_len};
    wire [W:0]   d_len_w = {{(W+1-L){1'b0}}, a_d_len};
    wire         over = e_len_w > {1'b0, a_max};
    // Whether stage a's operands are what stage b's events leave (the enqueue lane wins, as in
    // the other two-bus forms).
    wire         e_hit_we = b_e_valid & (a_e_key == b_e_key);
    wire         d_hit_we = b_e_valid & (a_d_key == b_e_key);
    wire         e_hit_wd = ~e_hit_we & b_d_valid & (a_e_key == b_d_key);
    wire         d_hit_wd = ~d_hit_we & b_d_valid & (a_d_key == b_d_key);
    // Stage b's arithmetic: the chains start at the operand registers.
    wire uf = b_d_len > op_d;
    wire [W-1:0] diff = op_d - b_d_len;
    wire ov_same = b_len_over_max | ({1'b0, op_d} > b_room_same);
    wire ov_e = b_len_over_max | ({1'b0, op_e} > b_room);
    wire [W-1:0] e_new = b_same ? (uf ? b_e_len_only : (ov_same ? diff : op_d + b_delta))
                                : (ov_e ? op_e : op_e + b_e_len);
    wire [W-1:0] d_new = uf ? {W{1'b0}} : diff;
    always @(posedge clk) begin
        a_e_valid <= e_valid;
        a_e_key <= e_key;
        a_e_len <= e_len;
        a_d_valid <= d_valid;
        a_d_key <= d_key;
        a_d_len <= d_len;
        a_max <= max;
        a_e_looked_up <= e_looked_up;
        a_d_looked_up <= d_looked_up;
        b_e_valid <= a_e_valid;
        b_e_key <= a_e_key;
        b_d_valid <= a_d_valid;
        b_d_key <= a_d_key;
        b_e_len <= e_len_w[W-1:0];
        b_d_len <= d_len_w[W-1:0];
        // Used only when e_len <= max.
        b_room <= {1'b0, a_max} - e_len_w;
        b_room_same <= {1'b0, a_max} - e_len_w + d_len_w;
        b_delta <= e_len_w[W-1:0] - d_len_w[W-1:0];
        b_e_len_only <= over ? {W{1'b0}} : e_len_w[W-1:0];
        b_len_over_max <= over;
        b_same <= a_e_valid & a_d_valid & (a_e_key == a_d_key);
        op_e <= e_hit_we ? e_new : (e_hit_wd ? d_new : a_e_looked_up);
        op_d <= d_hit_we ? e_new : (d_hit_wd ? d_new : a_d_looked_up);
        if (rst) begin
            e_occ <= {W{1'b0}};
            e_drop <= 1'b0;
            d_occ <= {W{1'b0}};
            d_underflow <= 1'b0;
        end else begin
            e_occ <= e_new;
            e_drop <= b_same ? (uf ? b_len_over_max : ov_same) : ov_e;
            d_occ <= d_new;
            d_underflow <= uf;
        end
    end
endmodule
