//! The decoded blocks of open compressed tables, kept for the next probes under a byte
//! budget shared with other tables (by default one budget of 1 GiB for the whole process).
//!
//! Past the budget, a block is made room for by evicting another, chosen by a clock over
//! every block the budget holds (CLOCK, "second chance"): a block read since the hand last
//! passed it is spared once. Blocks read again and again stay (the small tables every
//! capture leads into, the blocks one request reads many times over while it searches the
//! dropped side), blocks read once go first, and memory stays bounded however many tables
//! a server holds. Without eviction, a full budget would make every block not yet held be
//! decoded again for each value read from it.
//!
//! Each thread also keeps [`RECENT`] of the blocks it read last ([`BlockCache::read`]), so
//! that the reads of one probe, most of them in a block it read just before, take no lock:
//! two threads reading the same block's place through its lock made the lock's cache line
//! bounce between the cores, 60 % of a compressed lookup's time in a batch probe. Those
//! blocks stay alive while a thread keeps them, evicted or not: at most [`RECENT`] blocks a
//! thread beyond the budget.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, Weak};

/// Decoded blocks held by all tables of the process at most, in bytes.
pub const PROCESS_BUDGET: usize = 1 << 30;

/// Blocks each thread keeps of those it read last.
pub const RECENT: usize = 8;

/// A block a thread read lately: its cache's number, the block's, its values.
type Recent = (u64, usize, Option<Arc<[u8]>>);

thread_local! {
    /// This thread's recent blocks, by [`recent_place`].
    static RECENT_BLOCKS: RefCell<[Recent; RECENT]> =
        const { RefCell::new([const { (0, 0, None) }; RECENT]) };
}

/// Numbers of the caches made so far: a thread's recent block is known by its cache's
/// number, never by an address that a table opened later could take.
static CACHES: AtomicU64 = AtomicU64::new(1);

/// One block's place in a table's cache: its values if held, and whether it was read
/// since the clock's hand last passed it.
#[derive(Default)]
struct Place {
    data: Mutex<Option<Arc<[u8]>>>,
    used: AtomicBool,
}

impl Place {
    fn data(&self) -> MutexGuard<'_, Option<Arc<[u8]>>> {
        self.data.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks the block read since the hand passed. The flag is shared by every reader, so
    /// it is set only when not set already (no cache line written on every read).
    #[inline]
    fn mark_used(&self) {
        if !self.used.load(Relaxed) {
            self.used.store(true, Relaxed);
        }
    }
}

/// Symbol `k` of a decoded block `d` (symbols of `width` bytes in planes, see
/// [`super::compressed`]), if it has one.
#[inline]
fn symbol_in(d: &[u8], k: usize, width: usize) -> Option<u16> {
    (k * width < d.len()).then(|| super::planes::plane_symbol(d, width, k))
}

/// A table's places, one per block.
type Places = [Place];

/// Bytes of decoded blocks that tables sharing it may hold, and the clock over them.
pub struct CacheBudget {
    limit: AtomicUsize,
    held: AtomicUsize,
    /// Every block held, as its table's places and its number, in the clock's order (the
    /// hand at the front). Blocks of tables since closed are skipped when met.
    clock: Mutex<VecDeque<(Weak<Places>, usize)>>,
}

impl std::fmt::Debug for CacheBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheBudget")
            .field("limit", &self.limit())
            .field("held", &self.held())
            .finish()
    }
}

static PROCESS: LazyLock<Arc<CacheBudget>> = LazyLock::new(|| CacheBudget::new(PROCESS_BUDGET));

impl CacheBudget {
    /// A budget of its own, for tables opened with it (a test's small one).
    pub fn new(limit: usize) -> Arc<CacheBudget> {
        Arc::new(CacheBudget {
            limit: AtomicUsize::new(limit),
            held: AtomicUsize::new(0),
            clock: Mutex::new(VecDeque::new()),
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

    fn clock(&self) -> MutexGuard<'_, VecDeque<(Weak<Places>, usize)>> {
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Count `n` more bytes as held, evicting blocks until they fit; false if they cannot
    /// (more than the whole budget, or nothing left to evict).
    fn reserve(&self, n: usize) -> bool {
        loop {
            let fits = self.held.fetch_update(Relaxed, Relaxed, |h| {
                (h + n <= self.limit()).then_some(h + n)
            });
            if fits.is_ok() {
                return true;
            }
            if n > self.limit() || !self.evict_one() {
                return false;
            }
        }
    }

    /// Evict one block, the first the hand meets that was not read since it last passed
    /// (a block read since is spared, and read no longer). False if none is held.
    fn evict_one(&self) -> bool {
        let mut clock = self.clock();
        while let Some((places, b)) = clock.pop_front() {
            // A closed table gave its bytes back when it was dropped.
            let Some(places) = places.upgrade() else {
                continue;
            };
            let place = &places[b];
            if place.used.swap(false, Relaxed) {
                clock.push_back((Arc::downgrade(&places), b));
                continue;
            }
            // Empty if its table is being dropped: then that drop counts its bytes.
            let taken = place.data().take();
            if let Some(d) = taken {
                self.held.fetch_sub(d.len(), Relaxed);
                return true;
            }
        }
        false
    }
}

/// A table's decoded blocks.
pub struct BlockCache {
    places: Arc<Places>,
    budget: Arc<CacheBudget>,
    /// This cache's number, for the threads' recent blocks.
    id: u64,
}

impl BlockCache {
    /// Places for a table of `blocks` blocks, holding them under `budget`.
    pub fn new(blocks: usize, budget: Arc<CacheBudget>) -> BlockCache {
        BlockCache {
            places: (0..blocks).map(|_| Place::default()).collect(),
            budget,
            id: CACHES.fetch_add(1, Relaxed),
        }
    }

    /// Symbol `k` of block `b` (as [`Self::symbol`]), from this thread's recent blocks when
    /// it is one of them, else from the shared places (and then it becomes one of them).
    #[inline]
    pub fn read(&self, b: usize, k: usize, width: usize) -> Option<u16> {
        // (A thread past its end, its locals gone, reads the places.)
        RECENT_BLOCKS
            .try_with(|recent| {
                let mut recent = recent.borrow_mut();
                let place = &mut recent[recent_place(self.id, b)];
                if (place.0, place.1) == (self.id, b) {
                    if let Some(d) = &place.2 {
                        // Still a block read again and again, for the clock.
                        if let Some(shared) = self.places.get(b) {
                            shared.mark_used();
                        }
                        return symbol_in(d, k, width);
                    }
                }
                let d = self.get(b)?;
                let s = symbol_in(&d, k, width);
                *place = (self.id, b, Some(d));
                s
            })
            .unwrap_or_else(|_| self.symbol(b, k, width))
    }

    /// Block `b`'s values, if held.
    pub fn get(&self, b: usize) -> Option<Arc<[u8]>> {
        let place = self.places.get(b)?;
        let held = place.data().clone();
        if held.is_some() {
            place.used.store(true, Relaxed);
        }
        held
    }

    /// Symbol `k` of block `b` (symbols of `width` bytes in planes, see
    /// [`super::compressed`]), if held.
    #[inline]
    pub fn symbol(&self, b: usize, k: usize, width: usize) -> Option<u16> {
        let place = self.places.get(b)?;
        let held = place.data();
        let s = symbol_in(held.as_ref()?, k, width);
        drop(held);
        // Only a block read counts as used.
        place.mark_used();
        s
    }

    /// Keep block `b`'s values, evicting other blocks of the budget if it is full (a block
    /// larger than the whole budget is not kept).
    pub fn offer(&self, b: usize, data: impl Into<Arc<[u8]>>) {
        let Some(place) = self.places.get(b) else {
            return;
        };
        // Another thread may have decoded it meanwhile.
        if place.data().is_some() {
            return;
        }
        let data = data.into();
        let _ = RECENT_BLOCKS.try_with(|r| {
            r.borrow_mut()[recent_place(self.id, b)] = (self.id, b, Some(data.clone()));
        });
        let n = data.len();
        // Room is made before the block is placed, and never while a place is locked:
        // evicting locks other places.
        if !self.budget.reserve(n) {
            return;
        }
        let mut held = place.data();
        if held.is_some() {
            drop(held);
            self.budget.held.fetch_sub(n, Relaxed);
            return;
        }
        *held = Some(data);
        drop(held);
        place.used.store(false, Relaxed);
        (self.budget.clock()).push_back((Arc::downgrade(&self.places), b));
    }

    /// The budget these blocks count against.
    pub fn budget(&self) -> &CacheBudget {
        &self.budget
    }
}

/// Where a thread keeps block `b` of cache `id` among its recent blocks (direct-mapped: a
/// block takes the place of the one there).
#[inline]
fn recent_place(id: u64, b: usize) -> usize {
    (id as usize).wrapping_mul(0x9E37_79B9).wrapping_add(b) % RECENT
}

impl Drop for BlockCache {
    /// The blocks this table held no longer count against its budget (each taken out of
    /// its place, so that a clock evicting it at the same moment does not count it too).
    fn drop(&mut self) {
        let held: usize = (self.places.iter())
            .filter_map(|p| p.data().take())
            .map(|d| d.len())
            .sum();
        self.budget.held.fetch_sub(held, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_budget_evicts_the_block_not_read_since_the_hand_passed() {
        let budget = CacheBudget::new(12);
        let cache = BlockCache::new(5, budget.clone());
        for b in 0..3 {
            cache.offer(b, vec![b as u8 + 1; 4]);
        }
        assert_eq!(budget.held(), 12);
        // Block 0 is read: the hand spares it and evicts block 1, read never.
        assert_eq!(cache.symbol(0, 3, 1), Some(1));
        cache.offer(3, vec![4; 4]);
        assert_eq!(budget.held(), 12);
        assert_eq!(cache.symbol(1, 0, 1), None);
        assert_eq!(
            (cache.symbol(0, 0, 1), cache.symbol(2, 0, 1)),
            (Some(1), Some(3))
        );
        // Offered again, a held block is not counted twice.
        cache.offer(3, vec![4; 4]);
        assert_eq!(budget.held(), 12);
        // A block needing two places' room evicts two blocks.
        cache.offer(4, vec![5; 8]);
        assert_eq!(budget.held(), 12);
        assert_eq!(cache.get(4).as_deref(), Some(&[5u8; 8][..]));
        // Larger than the whole budget: used once, not kept, nothing evicted for it.
        let other = BlockCache::new(1, budget.clone());
        other.offer(0, vec![9; 13]);
        assert_eq!((other.get(0), budget.held()), (None, 12));
        // Two-byte symbols in planes: low bytes, then high bytes.
        let wide = BlockCache::new(1, CacheBudget::new(10));
        wide.offer(0, vec![1, 2, 0, 3]);
        assert_eq!(wide.symbol(0, 1, 2), Some(0x0302));
        assert_eq!(wide.symbol(0, 2, 2), None);
        drop(cache);
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn a_thread_reads_its_recent_blocks_after_eviction_and_never_another_cache_s() {
        let budget = CacheBudget::new(4);
        let a = BlockCache::new(2, budget.clone());
        a.offer(0, vec![7; 4]);
        assert_eq!(a.read(0, 1, 1), Some(7));
        // Block 1 takes block 0's room in the places; block 0 stays this thread's.
        a.offer(1, vec![8; 4]);
        assert!(a.get(0).is_none());
        assert_eq!((a.read(0, 1, 1), a.read(1, 3, 1)), (Some(7), Some(8)));
        assert_eq!(a.read(0, 4, 1), None, "past the block's end");
        // Another thread has only the places.
        std::thread::scope(|s| {
            let other = s.spawn(|| (a.read(0, 1, 1), a.read(1, 1, 1)));
            assert_eq!(other.join().expect("thread"), (None, Some(8)));
        });
        // A table opened later is another cache, wherever it lies in memory.
        drop(a);
        let b = BlockCache::new(2, budget.clone());
        assert_eq!((b.read(0, 1, 1), b.read(1, 1, 1)), (None, None));
        assert_eq!(budget.held(), 0);
    }

    #[test]
    fn tables_sharing_a_budget_evict_each_other_and_closing_one_frees_its_bytes() {
        let budget = CacheBudget::new(10);
        let a = BlockCache::new(2, budget.clone());
        let b = BlockCache::new(2, budget.clone());
        a.offer(0, vec![1; 5]);
        a.offer(1, vec![2; 5]);
        // Table b's block takes the room of table a's oldest one.
        b.offer(0, vec![3; 5]);
        assert_eq!(budget.held(), 10);
        assert!(a.get(0).is_none() && a.get(1).is_some() && b.get(0).is_some());
        drop(a);
        assert_eq!(budget.held(), 5);
        // Room given back by the closed table.
        b.offer(1, vec![4; 5]);
        assert_eq!(budget.held(), 10);
        // A third table's block: the hand skips the closed table's entry, spares b's block
        // 0 (read above) and evicts its block 1 (never read).
        let c = BlockCache::new(1, budget.clone());
        c.offer(0, vec![6; 5]);
        assert_eq!(budget.held(), 10);
        assert!(b.get(0).is_some() && b.get(1).is_none() && c.get(0).is_some());
        drop((b, c));
        assert_eq!(budget.held(), 0);
    }
}
