//! The Ethernet frame check sequence (IEEE 802.3 CRC-32), shared bit-exactly by the golden
//! models and the RTL: reflected polynomial 0xEDB88320, register preset to all ones, the FCS
//! the complement of the register, sent least significant byte first. A bit-serial definition,
//! so the RTL derives its XOR networks from it (crates/rtl/src/pfcmac.rs).

pub const CRC32_REFLECTED: u32 = 0xEDB8_8320;

/// The CRC register before the first byte of a frame.
pub const CRC_INIT: u32 = u32::MAX;

/// The register after a frame and its correct FCS: every good frame leaves this value.
pub const CRC_RESIDUE: u32 = 0xDEBB_20E3;

/// The CRC register after one more byte.
pub fn crc_byte(crc: u32, byte: u8) -> u32 {
    let mut crc = crc ^ u32::from(byte);
    for _ in 0..8 {
        let lsb = crc & 1;
        crc = (crc >> 1) ^ (lsb.wrapping_neg() & CRC32_REFLECTED);
    }
    crc
}

/// The CRC register after `bytes`, from `crc`.
pub fn crc_bytes(crc: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(crc, |c, &b| crc_byte(c, b))
}

/// The FCS of a frame (destination address to the last byte before the FCS), as a value whose
/// low byte is sent first.
pub fn fcs(frame: &[u8]) -> u32 {
    !crc_bytes(CRC_INIT, frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_check_value_and_residue() {
        // The CRC-32 check value of "123456789".
        assert_eq!(fcs(b"123456789"), 0xCBF4_3926);
        let mut frame = b"any frame at all".to_vec();
        frame.extend_from_slice(&fcs(&frame).to_le_bytes());
        assert_eq!(crc_bytes(CRC_INIT, &frame), CRC_RESIDUE);
        frame[3] ^= 0x10;
        assert_ne!(crc_bytes(CRC_INIT, &frame), CRC_RESIDUE);
    }
}
