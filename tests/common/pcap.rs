//! Just enough of the classic pcap format (Ethernet link type) to hand frames to a third-party
//! tool and take them back.

use std::path::Path;

/// Writes `frames` as a pcap file of Ethernet frames (microsecond timestamps, one per frame).
pub fn write(path: &Path, frames: &[Vec<u8>]) {
    let mut out = Vec::new();
    // Magic, version 2.4, zone 0, sigfigs 0, snaplen 65535, link type 1 (Ethernet).
    out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    out.extend_from_slice(&2u16.to_le_bytes());
    out.extend_from_slice(&4u16.to_le_bytes());
    for w in [0u32, 0, 65535, 1] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for (k, f) in frames.iter().enumerate() {
        for w in [0u32, k as u32, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    std::fs::write(path, out).unwrap();
}

/// The frames of a little-endian classic pcap file.
pub fn read(path: &Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap();
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!(
        word(0),
        0xa1b2_c3d4,
        "{}: not a little-endian microsecond pcap",
        path.display()
    );
    let mut frames = Vec::new();
    let mut at = 24;
    while at + 16 <= b.len() {
        let len = word(at + 8) as usize;
        frames.push(b[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    frames
}
