//! The decoded blocks of an open compressed table, kept for the next probes under a byte
//! budget shared with other tables (by default one budget of 1 GiB for the whole process).

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// Places for decoded blocks per table (direct-mapped by block number): every block of a
/// 4-piece table or of a 5-piece one.
pub const CACHE_PLACES: usize = 4096;
/// Decoded blocks held by all tables of the process at most, in bytes: past it, a block
/// decoded into an empty place is used once and not kept, so memory stays bounded however
/// many tables a server holds.
pub const PROCESS_BUDGET: usize = 1 << 30;

/// Bytes of decoded blocks that tables sharing it may hold.
#[derive(Debug)]
pub struct CacheBudget {
    limit: AtomicUsize,
    held: AtomicUsize,
}

static PROCESS: LazyLock<Arc<CacheBudget>> = LazyLock::new(|| CacheBudget::new(PROCESS_BUDGET));

impl CacheBudget {
    /// A budget of its own, for tables opened with it (a test's small one).
    pub fn new(limit: usize) -> Arc<CacheBudget> {
        Arc::new(CacheBudget {
            limit: AtomicUsize::new(limit),
            held: AtomicUsize::new(0),
        })
    }

    /// The budget every table shares unless opened with another.
    pub fn process() -> Arc<CacheBudget> {
        PROCESS.clone()
    }

    pub fn limit(&self) -> usize {
        self.limit.load(Relaxed)
    }

    /// Let the tables sharing this budget hold `limit` bytes from now on: a process that
    /// reads every block of its tables many times over (`retro generate` over compressed
    /// sub-tables) holds them all rather than decoding each again.
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Relaxed);
    }

    /// Bytes held now by the tables sharing this budget.
    pub fn held(&self) -> usize {
        self.held.load(Relaxed)
    }

    /// Hold `add` more bytes in place of `free`, if that stays within the limit.
    fn exchange(&self, free: usize, add: usize) -> bool {
        self.held
            .fetch_update(Relaxed, Relaxed, |h| {
                let next = h - free + add;
                (next <= self.limit()).then_some(next)
            })
            .is_ok()
    }
}

/// One place: the number of the block it holds, and its values.
type Place = Mutex<Option<(usize, Arc<[u8]>)>>;

/// A table's decoded blocks.
pub struct BlockCache {
    /// A table of at most [`CACHE_PLACES`] blocks: a place per block, set once (a block is
    /// never displaced by another), read without a lock: probing threads share nothing
    /// they write.
    once: Vec<OnceLock<Box<[u8]>>>,
    /// A larger table: direct-mapped places, a block displacing another.
    places: Vec<Place>,
    budget: Arc<CacheBudget>,
}

impl BlockCache {
    /// Places for a table of `blocks` blocks, holding them under `budget`.
    pub fn new(blocks: usize, budget: Arc<CacheBudget>) -> BlockCache {
        if blocks <= CACHE_PLACES {
            return BlockCache {
                once: (0..blocks).map(|_| OnceLock::new()).collect(),
                places: Vec::new(),
                budget,
            };
        }
        BlockCache::mapped(CACHE_PLACES, budget)
    }

    /// `places` direct-mapped places (a table of more blocks than [`CACHE_PLACES`]).
    fn mapped(places: usize, budget: Arc<CacheBudget>) -> BlockCache {
        BlockCache {
            once: Vec::new(),
            places: (0..places.max(1)).map(|_| Mutex::new(None)).collect(),
            budget,
        }
    }

    fn place(&self, b: usize) -> &Place {
        &self.places[b % self.places.len()]
    }

    /// Block `b`'s values, if held.
    pub fn get(&self, b: usize) -> Option<Arc<[u8]>> {
        if !self.once.is_empty() {
            return self.once.get(b)?.get().map(|d| Arc::from(&d[..]));
        }
        let held = self.place(b).lock().unwrap_or_else(|e| e.into_inner());
        held.as_ref()
            .filter(|(k, _)| *k == b)
            .map(|(_, d)| d.clone())
    }

    /// Symbol `k` of block `b` (symbols of `width` bytes in planes, see
    /// [`super::compressed`]), if held.
    #[inline]
    pub fn symbol(&self, b: usize, k: usize, width: usize) -> Option<u16> {
        let at =
            |d: &[u8]| (k * width < d.len()).then(|| super::compressed::plane_symbol(d, width, k));
        if !self.once.is_empty() {
            return at(self.once.get(b)?.get()?);
        }
        let held = self.place(b).lock().unwrap_or_else(|e| e.into_inner());
        match held.as_ref() {
            Some((h, d)) if *h == b => at(d),
            _ => None,
        }
    }

    /// Keep block `b`'s values in its place, replacing what it holds, if the budget allows.
    pub fn offer(&self, b: usize, data: Vec<u8>) {
        if !self.once.is_empty() {
            let Some(place) = self.once.get(b) else {
                return;
            };
            let n = data.len();
            if place.get().is_none() && self.budget.exchange(0, n) {
                // Another thread may have set it meanwhile: then these bytes are not held.
                if place.set(data.into_boxed_slice()).is_err() {
                    self.budget.exchange(n, 0);
                }
            }
            return;
        }
        let mut held = self.place(b).lock().unwrap_or_else(|e| e.into_inner());
        let freed = held.as_ref().map_or(0, |(_, d)| d.len());
        if self.budget.exchange(freed, data.len()) {
            *held = Some((b, data.into()));
        }
    }

    /// The budget these blocks count against.
    pub fn budget(&self) -> &CacheBudget {
        &self.budget
    }
}

impl Drop for BlockCache {
    /// The blocks this table held no longer count against its budget.
    fn drop(&mut self) {
        let once: usize = self
            .once
            .iter()
            .filter_map(|c| c.get())
            .map(|d| d.len())
            .sum();
        let mapped: usize = self
            .places
            .iter_mut()
            .filter_map(|c| c.get_mut().ok()?.as_ref().map(|(_, d)| d.len()))
            .sum();
        self.budget.held.fetch_sub(once + mapped, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_kept_once_each_within_the_budget() {
        let budget = CacheBudget::new(10);
        let cache = BlockCache::new(3, budget.clone());
        cache.offer(0, vec![1; 6]);
        // 6 + 6 > 10: block 1 is used once and not kept.
        cache.offer(1, vec![2; 6]);
        assert_eq!(budget.held(), 6);
        assert_eq!(cache.symbol(1, 0, 1), None);
        assert_eq!(cache.symbol(0, 5, 1), Some(1));
        // Offered again, block 0 is not counted twice.
        cache.offer(0, vec![1; 6]);
        assert_eq!(budget.held(), 6);
        cache.offer(2, vec![3; 4]);
        assert_eq!((budget.held(), cache.symbol(2, 3, 1)), (10, Some(3)));
        // Two-byte symbols in planes: low bytes, then high bytes.
        let wide = BlockCache::new(1, CacheBudget::new(10));
        wide.offer(0, vec![1, 2, 0, 3]);
        assert_eq!(wide.symbol(0, 1, 2), Some(0x0302));
        assert_eq!(wide.symbol(0, 2, 2), None);
        drop(cache);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn mapped_blocks_are_kept_only_within_the_budget() {
        let budget = CacheBudget::new(10);
        let cache = BlockCache::mapped(3, budget.clone());
        cache.offer(0, vec![1; 6]);
        // 6 + 6 > 10: block 1 is used once and not kept.
        cache.offer(1, vec![2; 6]);
        assert_eq!(budget.held(), 6);
        assert!(cache.get(1).is_none());
        assert_eq!(cache.get(0).as_deref(), Some(&[1u8; 6][..]));
        // Block 3 goes where block 0 was (3 places): 6 freed, 4 taken.
        cache.offer(3, vec![3; 4]);
        assert_eq!(budget.held(), 4);
        assert!(cache.get(0).is_none());
        drop(cache);
        assert_eq!(budget.held(), 0);
    }
}
