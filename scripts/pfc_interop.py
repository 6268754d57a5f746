#!/usr/bin/env python3
"""PFC frames through a dissector nobody here wrote: scapy's 802.1Qbb layer
(scapy.contrib.mac_control.MACControlClassBasedFlowControl) and zlib's CRC-32.

  pfc_interop.py dissect FILE.pcap FCS   one JSON line per frame: the fields scapy parsed
  pfc_interop.py build FILE.pcap SEED FCS  writes frames scapy built; one JSON line per frame:
                                           what a receiver must make of it

FCS is 1 when the frames carry their FCS (checked, or appended, with zlib.crc32), else 0.
Used by tests/pfcmac_interop.rs; scapy comes from .tools/interop (scripts/setup-interop.sh).
"""
import json
import random
import struct
import sys
import zlib

from scapy.contrib.mac_control import MACControlClassBasedFlowControl
from scapy.layers.l2 import Ether
from scapy.packet import Padding, Raw
from scapy.utils import rdpcap, wrpcap

PFC_DST = "01:80:c2:00:00:01"


def dissect(path, fcs):
    for pkt in rdpcap(path):
        raw = bytes(pkt)
        out = {"length": len(raw)}
        if fcs:
            body, tail = raw[:-4], raw[-4:]
            out["fcs_ok"] = zlib.crc32(body) == struct.unpack("<I", tail)[0]
            raw = body
        frame = Ether(raw)
        pfc = frame.getlayer(MACControlClassBasedFlowControl)
        out["dst"] = frame.dst
        out["src"] = frame.src
        out["type"] = frame.type
        out["is_pfc"] = pfc is not None
        if pfc is not None:
            out["opcode"] = pfc._op_code
            out["reserved"] = pfc._reserved
            out["enable"] = sum(getattr(pfc, "c%d_enabled" % c) << c for c in range(8))
            out["times"] = [getattr(pfc, "c%d_pause_time" % c) for c in range(8)]
            rest = bytes(pfc.payload)
            out["padding_zero"] = all(b == 0 for b in rest)
            out["bytes_after_times"] = len(rest)
        print(json.dumps(out))


def build(path, seed, fcs):
    rng = random.Random(seed)
    frames = []
    for _ in range(200):
        enable = rng.randrange(256)
        times = [rng.choice([0, rng.randrange(1, 64), rng.randrange(65536)]) for _ in range(8)]
        fields = {"c%d_enabled" % c: enable >> c & 1 for c in range(8)}
        fields.update({"c%d_pause_time" % c: times[c] for c in range(8)})
        src = "02:%02x:%02x:%02x:%02x:%02x" % tuple(rng.randrange(256) for _ in range(5))
        pkt = Ether(dst=PFC_DST, src=src) / MACControlClassBasedFlowControl(**fields)
        raw = bytes(pkt)
        raw += b"\0" * (60 - len(raw))
        kind = rng.choice(["good"] * 6 + ["dst", "short", "long", "fcs", "pause", "ipv4"])
        if kind == "dst":
            raw = bytes.fromhex("0180c2000002") + raw[6:]
        elif kind == "short":
            raw = raw[:59]
        elif kind == "long":
            raw = raw + b"\0"
        elif kind == "pause":
            raw = bytes(Ether(dst=PFC_DST, src=src, type=0x8808) / Raw(b"\x00\x01\xff\xff"))
            raw += b"\0" * (60 - len(raw))
        elif kind == "ipv4":
            raw = bytes(Ether(dst="02:00:00:00:00:02", src=src, type=0x0800) / Raw(b"\x45" * 46))
        if fcs:
            crc = zlib.crc32(raw)
            if kind == "fcs":
                crc ^= 0x100
            raw += struct.pack("<I", crc)
        elif kind == "fcs":
            kind = "good"
        verdict = {"good": "good", "pause": "ignored", "ipv4": "ignored"}.get(kind, "bad")
        frames.append(Ether(raw))
        print(json.dumps({"kind": kind, "verdict": verdict, "enable": enable, "times": times}))
    wrpcap(path, frames)


if __name__ == "__main__":
    if sys.argv[1] == "dissect":
        dissect(sys.argv[2], sys.argv[3] == "1")
    elif sys.argv[1] == "build":
        build(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")
    else:
        sys.exit("usage: pfc_interop.py dissect FILE FCS | build FILE SEED FCS")
