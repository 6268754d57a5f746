// pfc_link_axil_demux: the AXI4-Lite demultiplexer of the pfc_link example (pfc_link_top.v).
// Hand-written; co-simulated by tests/example_pfc_link.rs.

`default_nettype none

// AXI4-Lite 1-to-N demultiplexer by address bits [11:8]. One write and one read in flight at
// a time (a new one is held until the previous response is taken), so responses return in
// order without IDs. Slave-side valids are gated combinationally; every slave output used here
// is a register of its bridge, so no combinational path runs from a master input to a master
// output except through this module's AND-OR of registered slave outputs.
module pfc_link_axil_demux #(
    parameter integer SLAVES = 5
) (
    input  wire                 clk,
    input  wire                 rst,
    // From the master.
    input  wire                 s_axil_awvalid,
    input  wire [11:0]          s_axil_awaddr,
    input  wire                 s_axil_wvalid,
    input  wire [31:0]          s_axil_wdata,
    input  wire [3:0]           s_axil_wstrb,
    input  wire                 s_axil_bready,
    input  wire                 s_axil_arvalid,
    input  wire [11:0]          s_axil_araddr,
    input  wire                 s_axil_rready,
    output wire                 s_axil_awready,
    output wire                 s_axil_wready,
    output wire                 s_axil_bvalid,
    output wire [1:0]           s_axil_bresp,
    output wire                 s_axil_arready,
    output wire                 s_axil_rvalid,
    output wire [31:0]          s_axil_rdata,
    output wire [1:0]           s_axil_rresp,
    // To the slaves: payloads shared, valids and readies one bit per slave.
    output wire [SLAVES-1:0]    m_axil_awvalid,
    output wire [7:0]           m_axil_awaddr,
    output wire [SLAVES-1:0]    m_axil_wvalid,
    output wire [31:0]          m_axil_wdata,
    output wire [3:0]           m_axil_wstrb,
    output wire [SLAVES-1:0]    m_axil_bready,
    output wire [SLAVES-1:0]    m_axil_arvalid,
    output wire [7:0]           m_axil_araddr,
    output wire [SLAVES-1:0]    m_axil_rready,
    input  wire [SLAVES-1:0]    m_axil_awready,
    input  wire [SLAVES-1:0]    m_axil_wready,
    input  wire [SLAVES-1:0]    m_axil_bvalid,
    input  wire [2*SLAVES-1:0]  m_axil_bresp,
    input  wire [SLAVES-1:0]    m_axil_arready,
    input  wire [SLAVES-1:0]    m_axil_rvalid,
    input  wire [32*SLAVES-1:0] m_axil_rdata,
    input  wire [2*SLAVES-1:0]  m_axil_rresp
);
    localparam [1:0] DECERR = 2'b11;

    wire [3:0] aw_slot = s_axil_awaddr[11:8];
    wire [3:0] ar_slot = s_axil_araddr[11:8];
    wire       aw_hit = {28'd0, aw_slot} < SLAVES;
    wire       ar_hit = {28'd0, ar_slot} < SLAVES;

    // A write (read) whose handshake is done and whose response is not yet taken.
    reg w_pending, r_pending;
    // The decode-error responder, timed like a bridge: handshake the cycle after the request
    // is seen, then the response until it is taken.
    reg dec_w_hs, dec_bvalid, dec_ar_hs, dec_rvalid;

    // A bridge takes a write only with both valids, so the data phase is forwarded only with its
    // address (whose bits choose the slave).
    wire w_go = s_axil_awvalid && s_axil_wvalid && !w_pending;
    wire r_go = s_axil_arvalid && !r_pending;

    genvar k;
    generate
        for (k = 0; k < SLAVES; k = k + 1) begin : slave
            localparam [3:0] SLOT = k;
            assign m_axil_awvalid[k] = w_go && aw_slot == SLOT;
            assign m_axil_wvalid[k] = w_go && aw_slot == SLOT;
            assign m_axil_arvalid[k] = r_go && ar_slot == SLOT;
        end
    endgenerate
    assign m_axil_awaddr = s_axil_awaddr[7:0];
    assign m_axil_wdata = s_axil_wdata;
    assign m_axil_wstrb = s_axil_wstrb;
    assign m_axil_araddr = s_axil_araddr[7:0];
    // Only the slave with a response pending looks at its ready.
    assign m_axil_bready = {SLAVES{s_axil_bready}};
    assign m_axil_rready = {SLAVES{s_axil_rready}};

    // Responses: at most one source is valid at a time (one transaction in flight per channel).
    reg [1:0]  bresp, rresp;
    reg [31:0] rdata;
    integer j;
    always @(*) begin
        bresp = dec_bvalid ? DECERR : 2'b00;
        rresp = dec_rvalid ? DECERR : 2'b00;
        rdata = 32'd0;
        for (j = 0; j < SLAVES; j = j + 1) begin
            bresp = bresp | (m_axil_bvalid[j] ? m_axil_bresp[2*j +: 2] : 2'b00);
            rresp = rresp | (m_axil_rvalid[j] ? m_axil_rresp[2*j +: 2] : 2'b00);
            rdata = rdata | (m_axil_rvalid[j] ? m_axil_rdata[32*j +: 32] : 32'd0);
        end
    end
    assign s_axil_awready = |m_axil_awready || dec_w_hs;
    assign s_axil_wready = |m_axil_wready || dec_w_hs;
    assign s_axil_bvalid = |m_axil_bvalid || dec_bvalid;
    assign s_axil_bresp = bresp;
    assign s_axil_arready = |m_axil_arready || dec_ar_hs;
    assign s_axil_rvalid = |m_axil_rvalid || dec_rvalid;
    assign s_axil_rdata = rdata;
    assign s_axil_rresp = rresp;

    always @(posedge clk) begin
        if (rst) begin
            w_pending <= 1'b0;
            r_pending <= 1'b0;
            dec_w_hs <= 1'b0;
            dec_bvalid <= 1'b0;
            dec_ar_hs <= 1'b0;
            dec_rvalid <= 1'b0;
        end else begin
            if (s_axil_awvalid && s_axil_awready)
                w_pending <= 1'b1;
            else if (s_axil_bvalid && s_axil_bready)
                w_pending <= 1'b0;
            if (s_axil_arvalid && s_axil_arready)
                r_pending <= 1'b1;
            else if (s_axil_rvalid && s_axil_rready)
                r_pending <= 1'b0;
            dec_w_hs <= w_go && !aw_hit && !dec_w_hs;
            if (dec_w_hs)
                dec_bvalid <= 1'b1;
            else if (s_axil_bready)
                dec_bvalid <= 1'b0;
            dec_ar_hs <= r_go && !ar_hit && !dec_ar_hs;
            if (dec_ar_hs)
                dec_rvalid <= 1'b1;
            else if (s_axil_rready)
                dec_rvalid <= 1'b0;
        end
    end
endmodule

`default_nettype wire
