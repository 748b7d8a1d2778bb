//! The threat search's transposition table types: exact position keys (both bitboards,
//! compared in full) hashed by their Zobrist value.

use std::hash::{Hash, Hasher};

use crate::rules::board::Key;

/// Fast hasher for keys that carry their own Zobrist hash.
#[derive(Default)]
pub(crate) struct ZHasher(u64);
impl Hasher for ZHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
pub(crate) struct TtKey {
    pub(crate) z: u64,
    pub(crate) key: Key,
}
impl Hash for TtKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.z);
    }
}

#[derive(Clone, Copy)]
pub(crate) struct TtEntry {
    /// Smallest budget proven (u32::MAX: none).
    pub(crate) proven: u32,
    /// The attacker move that proved it.
    pub(crate) best: u16,
    /// Largest budget that failed in VCF mode / VCT mode (0: none).
    pub(crate) failed: [u32; 3],
    /// The failure did not depend on the budget (no branch was cut by it).
    pub(crate) exhaustive: [bool; 3],
}
