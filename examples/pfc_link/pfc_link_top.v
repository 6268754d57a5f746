// pfc_link_top: an example of switchcraft's blocks wired into one design a user can start from.
//
//   * PFC (`pfc_tiny`: 4 ports x 2 priorities) watches the ingress buffer (`enq_*`/`deq_*`)
//     and asks for pause frames on its frame descriptor bus;
//   * one pfcmac per port (`pfcmac_tiny`: 8-bit AXI-Stream, FCS in the block) turns that port's
//     descriptors into 802.1Qbb frames on `tx_*` and parses the frames the link partner sends on
//     `rx_*` into per-class pause state (`paused`) and `rx_pfc_*` events;
//   * one AXI4-Lite slave reaches every block's registers through a small demultiplexer.
//
// Address map (byte addresses, 12 bits): 0x000-0x0FF PFC; 0x100 + 0x100 * p pfcmac of port p
// (p = 0..3); 0x500-0xFFF answer DECERR. Within a block, the offsets of its register map
// (`rtl/<block>/<instance>_csr.h`).
//
// Per-port buses are packed, port p in bits [W*p +: W]. The generated modules come from
// rtl/pfc/pfc_tiny.v and rtl/pfcmac/pfcmac_tiny.v; for other instances, change the module
// names and the widths below (see examples/pfc_link/README.md). Hand-written; co-simulated
// against the blocks' models by tests/example_pfc_link.rs.

`default_nettype none

module pfc_link_top (
    input  wire         clk,
    input  wire         rst,
    // The ingress buffer's events (see rtl/pfc/pfc_tiny.ports.json).
    input  wire         enq_valid,
    input  wire [1:0]   enq_port,
    input  wire         enq_prio,
    input  wire [10:0]  enq_len,
    input  wire         deq_valid,
    input  wire [1:0]   deq_port,
    input  wire         deq_prio,
    input  wire [10:0]  deq_len,
    output wire         enq_drop,
    output wire         xoff_valid,
    output wire [1:0]   xoff_port,
    output wire         xoff_prio,
    output wire         xon_valid,
    output wire [1:0]   xon_port,
    output wire         xon_prio,
    // Per port p: pause frames to the MAC's TX stream (merge them with data frames there).
    output wire [3:0]   tx_tvalid,
    output wire [31:0]  tx_tdata,
    output wire [3:0]   tx_tkeep,
    output wire [3:0]   tx_tlast,
    input  wire [3:0]   tx_tready,
    // Per port p: the MAC's RX stream (every frame; pfcmac picks the PFC frames out).
    input  wire [3:0]   rx_tvalid,
    input  wire [31:0]  rx_tdata,
    input  wire [3:0]   rx_tkeep,
    input  wire [3:0]   rx_tlast,
    input  wire [3:0]   rx_tuser,
    // Per port p: classes the link partner has paused (to the egress scheduler), pause events
    // (to TCD's `rx_pfc` bus, for one), and a pulse per malformed PFC frame.
    output wire [31:0]  paused,
    output wire [3:0]   rx_pfc_valid,
    output wire [11:0]  rx_pfc_prio,
    output wire [63:0]  rx_pfc_quanta,
    output wire [3:0]   bad_frame,
    // Registers of every block.
    input  wire         s_axil_awvalid,
    input  wire [11:0]  s_axil_awaddr,
    input  wire         s_axil_wvalid,
    input  wire [31:0]  s_axil_wdata,
    input  wire [3:0]   s_axil_wstrb,
    input  wire         s_axil_bready,
    input  wire         s_axil_arvalid,
    input  wire [11:0]  s_axil_araddr,
    input  wire         s_axil_rready,
    output wire         s_axil_awready,
    output wire         s_axil_wready,
    output wire         s_axil_bvalid,
    output wire [1:0]   s_axil_bresp,
    output wire         s_axil_arready,
    output wire         s_axil_rvalid,
    output wire [31:0]  s_axil_rdata,
    output wire [1:0]   s_axil_rresp
);
    localparam integer PORTS = 4;
    localparam integer SLAVES = PORTS + 1; // slave 0: PFC; slave 1 + p: pfcmac of port p

    wire [SLAVES-1:0]    awvalid, wvalid, bready, arvalid, rready;
    wire [SLAVES-1:0]    awready, wready, bvalid, arready, rvalid;
    wire [7:0]           awaddr, araddr;
    wire [31:0]          wdata;
    wire [3:0]           wstrb;
    wire [2*SLAVES-1:0]  bresp, rresp;
    wire [32*SLAVES-1:0] rdata;

    pfc_link_axil_demux #(.SLAVES(SLAVES)) demux (
        .clk(clk), .rst(rst),
        .s_axil_awvalid(s_axil_awvalid), .s_axil_awaddr(s_axil_awaddr),
        .s_axil_wvalid(s_axil_wvalid), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
        .s_axil_bready(s_axil_bready),
        .s_axil_arvalid(s_axil_arvalid), .s_axil_araddr(s_axil_araddr),
        .s_axil_rready(s_axil_rready),
        .s_axil_awready(s_axil_awready), .s_axil_wready(s_axil_wready),
        .s_axil_bvalid(s_axil_bvalid), .s_axil_bresp(s_axil_bresp),
        .s_axil_arready(s_axil_arready), .s_axil_rvalid(s_axil_rvalid),
        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .m_axil_awvalid(awvalid), .m_axil_awaddr(awaddr), .m_axil_wvalid(wvalid),
        .m_axil_wdata(wdata), .m_axil_wstrb(wstrb), .m_axil_bready(bready),
        .m_axil_arvalid(arvalid), .m_axil_araddr(araddr), .m_axil_rready(rready),
        .m_axil_awready(awready), .m_axil_wready(wready), .m_axil_bvalid(bvalid),
        .m_axil_bresp(bresp), .m_axil_arready(arready), .m_axil_rvalid(rvalid),
        .m_axil_rdata(rdata), .m_axil_rresp(rresp)
    );

    // PFC's frame descriptors: one port's classes to pause (resume) per descriptor.
    wire        frame_valid;
    wire [1:0]  frame_port;
    wire [7:0]  frame_class_enable, frame_pause;
    wire [15:0] frame_quanta;

    pfc_tiny_axil_top pfc (
        .clk(clk), .rst(rst),
        .enq_valid(enq_valid), .enq_port(enq_port), .enq_prio(enq_prio), .enq_len(enq_len),
        .deq_valid(deq_valid), .deq_port(deq_port), .deq_prio(deq_prio), .deq_len(deq_len),
        .enq_drop(enq_drop),
        .xoff_valid(xoff_valid), .xoff_port(xoff_port), .xoff_prio(xoff_prio),
        .xon_valid(xon_valid), .xon_port(xon_port), .xon_prio(xon_prio),
        .frame_valid(frame_valid), .frame_port(frame_port),
        .frame_class_enable(frame_class_enable), .frame_pause(frame_pause),
        .frame_quanta(frame_quanta),
        .s_axil_awvalid(awvalid[0]), .s_axil_awaddr(awaddr), .s_axil_wvalid(wvalid[0]),
        .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_bready(bready[0]),
        .s_axil_arvalid(arvalid[0]), .s_axil_araddr(araddr), .s_axil_rready(rready[0]),
        .s_axil_awready(awready[0]), .s_axil_wready(wready[0]), .s_axil_bvalid(bvalid[0]),
        .s_axil_bresp(bresp[1:0]), .s_axil_arready(arready[0]), .s_axil_rvalid(rvalid[0]),
        .s_axil_rdata(rdata[31:0]), .s_axil_rresp(rresp[1:0])
    );

    genvar p;
    generate
        for (p = 0; p < PORTS; p = p + 1) begin : link
            localparam [1:0] PORT = p;
            localparam integer S = p + 1;
            pfcmac_tiny_axil_top mac (
                .clk(clk), .rst(rst),
                .frame_valid(frame_valid && frame_port == PORT),
                .frame_class_enable(frame_class_enable), .frame_pause(frame_pause),
                .frame_quanta(frame_quanta),
                .tx_tvalid(tx_tvalid[p]), .tx_tdata(tx_tdata[8*p +: 8]),
                .tx_tkeep(tx_tkeep[p]), .tx_tlast(tx_tlast[p]), .tx_tready(tx_tready[p]),
                .rx_tvalid(rx_tvalid[p]), .rx_tdata(rx_tdata[8*p +: 8]),
                .rx_tkeep(rx_tkeep[p]), .rx_tlast(rx_tlast[p]), .rx_tuser(rx_tuser[p]),
                .paused(paused[8*p +: 8]), .rx_pfc_valid(rx_pfc_valid[p]),
                .rx_pfc_prio(rx_pfc_prio[3*p +: 3]), .rx_pfc_quanta(rx_pfc_quanta[16*p +: 16]),
                .bad_frame(bad_frame[p]),
                .s_axil_awvalid(awvalid[S]), .s_axil_awaddr(awaddr), .s_axil_wvalid(wvalid[S]),
                .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_bready(bready[S]),
                .s_axil_arvalid(arvalid[S]), .s_axil_araddr(araddr), .s_axil_rready(rready[S]),
                .s_axil_awready(awready[S]), .s_axil_wready(wready[S]), .s_axil_bvalid(bvalid[S]),
                .s_axil_bresp(bresp[2*S +: 2]), .s_axil_arready(arready[S]),
                .s_axil_rvalid(rvalid[S]), .s_axil_rdata(rdata[32*S +: 32]),
                .s_axil_rresp(rresp[2*S +: 2])
            );
        end
    endgenerate
endmodule

`default_nettype wire
