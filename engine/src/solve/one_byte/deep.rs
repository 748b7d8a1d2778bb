//! Values beyond a byte, where values are kept in plies ([`Packing::Plies`]): distances to
//! zeroing past 126 plies (losses past 125), which only the long cursed wins and blessed
//! losses reach, in few positions. Their slots hold the [`DEEP`] byte and their values are
//! kept here.
//!
//! [`Packing::Plies`]: super::packing::Packing::Plies

use std::collections::HashMap;
use std::sync::Mutex;

use super::super::bytes::Bytes;
use super::packing::{Packing, DEEP};
use crate::game::{Index, Value};

/// Shards of the map, so that threads storing deep values at once rarely wait.
const SHARDS: usize = 64;

/// The deep values, by slot.
pub(super) struct Deep {
    shards: Vec<Mutex<HashMap<Index, Value>>>,
}

impl Deep {
    pub(super) fn new() -> Deep {
        Deep {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    fn shard(&self, i: Index) -> std::sync::MutexGuard<'_, HashMap<Index, Value>> {
        // A poisoned shard means a thread panicked while solving: the solve is lost
        // anyway, and the map itself is whole (an insert does not unwind half-way).
        match self.shards[i as usize % SHARDS].lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Store `v` in slot `i` of `bytes` if it holds `old`; true if it did. The byte
    /// changes under the shard's lock, so a reader that sees [`DEEP`] finds the value.
    pub(super) fn store(&self, bytes: &Bytes, i: Index, old: u8, v: Value) -> bool {
        let mut shard = self.shard(i);
        let ok = bytes.swap(i as usize, old, DEEP);
        if ok {
            shard.insert(i, v);
        }
        ok
    }

    /// The value byte `b` of slot `i` stands for, bytes holding values as `packing` says:
    /// with plies, [`DEEP`] is read here (the never-lost mark's byte holds none).
    #[inline]
    pub(super) fn read(&self, packing: Packing, b: u8, i: Index) -> Value {
        if b == DEEP && packing == Packing::Plies {
            self.get(i)
        } else {
            packing.unpack(b)
        }
    }

    /// The value of slot `i`, which holds [`DEEP`].
    fn get(&self, i: Index) -> Value {
        *self
            .shard(i)
            .get(&i)
            .expect("a slot holding the deep byte has a deep value")
    }

    /// The slots holding `v`, in order.
    pub(super) fn holding(&self, v: Value) -> Vec<Index> {
        let mut out: Vec<Index> = self
            .shards
            .iter()
            .flat_map(|s| {
                let s = match s.lock() {
                    Ok(g) => g,
                    Err(poisoned) => poisoned.into_inner(),
                };
                s.iter()
                    .filter(|&(_, &x)| x == v)
                    .map(|(&i, _)| i)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.sort_unstable();
        out
    }
}
