// BFC's queue search alone, the recurrence of dynamic queue assignment at `fpga` (8 queues per
// egress port), for one egress port: an arrival that needs a new queue takes the first empty
// queue of its class at or after the port's rotating start (else the lowest one of the class),
// that queue stops being empty and the start moves past it, and the next arrival searches
// from there. A departure empties a queue before the search of its cycle. The class's data
// queues come decoded from a register (as in the block). Inputs are sampled at edge n, the
// search runs in cycle n from those registers and the loop's, and found/q show its result
// after edge n + 1. Measured by `switchcraft synth --loops`; tests/bfc_loops.rs checks it
// against the golden model's search.
//
// Hand-written, not generated: the loop alone, to bound what a block built around it can reach.
// Two forms of the same function:
//
//   bfc_search_loop              the block's form until 2026-11-29: the start as an index, the
//                                candidates at or after it by a mask made from it, one
//                                lowest-bit search on the chosen set.
//   bfc_search_loop_thermometer  the block's form since: the start kept as a mask of the queues
//                                at or after it, both searches (above the start, from queue 0)
//                                in parallel and chosen after them, the next mask by a prefix
//                                OR of the queue found (x ^ -x in the block): no shift or
//                                subtraction of the start in the loop.

// Several modules in one file, by design (one file per loop).
/* verilator lint_off DECLFILENAME */

module bfc_search_loop (
    input  wire       clk,
    input  wire       rst,
    input  wire       a_valid,
    input  wire [7:0] a_class,
    input  wire       d_valid,
    input  wire [2:0] d_q,
    output reg        found,
    output reg  [2:0] q,
    output wire [2:0] start
);
    reg        a_valid_r, d_valid_r;
    reg  [7:0] a_class_r;
    reg  [2:0] d_q_r;
    reg  [7:0] empty;
    reg  [2:0] rr;
    wire [7:0] empty_now = empty | (d_valid_r ? 8'd1 << d_q_r : 8'd0);
    wire [7:0] cand = empty_now & a_class_r;
    // At or after the start first, then from queue 0; the lowest set bit (x & -x) and its index.
    wire [7:0] upper = cand & ~((8'd1 << rr) - 8'd1);
    wire [7:0] pick = |upper ? upper : cand;
    wire [7:0] low = pick & (~pick + 8'd1);
    wire [2:0] index = {|(low & 8'hF0), |(low & 8'hCC), |(low & 8'hAA)};
    wire take = a_valid_r && |cand;
    always @(posedge clk) begin
        a_class_r <= a_class;
        d_q_r <= d_q;
        if (rst) begin
            a_valid_r <= 1'b0;
            d_valid_r <= 1'b0;
            empty <= 8'hFF;
            rr <= 3'd0;
            found <= 1'b0;
            q <= 3'd0;
        end else begin
            a_valid_r <= a_valid;
            d_valid_r <= d_valid;
            empty <= take ? empty_now & ~low : empty_now;
            // 8 queues: the start past queue 7 wraps to 0 by itself.
            if (take) rr <= index + 3'd1;
            found <= take;
            q <= take ? index : 3'd0;
        end
    end
    assign start = rr;
endmodule

module bfc_search_loop_thermometer (
    input  wire       clk,
    input  wire       rst,
    input  wire       a_valid,
    input  wire [7:0] a_class,
    input  wire       d_valid,
    input  wire [2:0] d_q,
    output reg        found,
    output reg  [2:0] q,
    output wire [2:0] start
);
    reg        a_valid_r, d_valid_r;
    reg  [7:0] a_class_r;
    reg  [2:0] d_q_r;
    reg  [7:0] empty;
    // Queue j is at or after the start.
    reg  [7:0] from_start;
    wire [7:0] empty_now = empty | (d_valid_r ? 8'd1 << d_q_r : 8'd0);
    wire [7:0] cand = empty_now & a_class_r;
    wire [7:0] upper = cand & from_start;
    wire [7:0] low_upper = upper & (~upper + 8'd1);
    wire [7:0] low_any = cand & (~cand + 8'd1);
    wire [7:0] low = |upper ? low_upper : low_any;
    wire [2:0] index = {|(low & 8'hF0), |(low & 8'hCC), |(low & 8'hAA)};
    // The queues above the one found. None above queue 7: the start wraps to 0, and an empty
    // mask searches from queue 0 as all ones would.
    wire [7:0] above = {|low[6:0], |low[5:0], |low[4:0], |low[3:0], |low[2:0], |low[1:0],
                        low[0], 1'b0};
    wire take = a_valid_r && |cand;
    // The start as an index, for the output only: the lowest queue at or after it (0 for an
    // empty mask).
    wire [7:0] start_low = from_start & (~from_start + 8'd1);
    always @(posedge clk) begin
        a_class_r <= a_class;
        d_q_r <= d_q;
        if (rst) begin
            a_valid_r <= 1'b0;
            d_valid_r <= 1'b0;
            empty <= 8'hFF;
            from_start <= 8'hFF;
            found <= 1'b0;
            q <= 3'd0;
        end else begin
            a_valid_r <= a_valid;
            d_valid_r <= d_valid;
            empty <= take ? empty_now & ~low : empty_now;
            if (take) from_start <= above;
            found <= take;
            q <= take ? index : 3'd0;
        end
    end
    assign start = {|(start_low & 8'hF0), |(start_low & 8'hCC), |(start_low & 8'hAA)};
endmodule
