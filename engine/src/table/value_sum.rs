//! A section's checksum of its values, as a compressed table (version 5) keeps it: xxh3-64
//! of each slot's value code ([`Metric::code`]), two bytes little-endian a slot, in index
//! order. Not of the dense records: a table compressed straight from its solve never has
//! its best moves made, so there is no record to hash, while its values are all there.
//! `retro decompress` checks the values it rebuilds against it, then writes the dense
//! file, its records hashed as usual. A DTZ record is its value's code, so for a DTZ table
//! this is the checksum of the records themselves.

use rayon::prelude::*;
use std::hash::Hasher as _;

use twox_hash::XxHash3_64;

use super::Metric;
use crate::game::Index;

/// Slots converted to codes and hashed at a time.
const CHUNK: usize = 1 << 20;

/// Records of `metric` (two bytes a slot), as value codes (two bytes a slot, little-endian),
/// into `out` (the same length).
pub fn codes(records: &[u8], metric: Metric, out: &mut [u8]) {
    match metric {
        // A DTZ record is its value's code.
        Metric::Dtz => out.copy_from_slice(records),
        Metric::Dtm => {
            for (r, o) in records.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
                let v = metric.value([r[0], r[1]]);
                o.copy_from_slice(&(metric.code(v) as u16).to_le_bytes());
            }
        }
    }
}

/// How many of `codes` (two bytes each) are each code of `metric`.
fn tally(codes: &[u8], metric: Metric) -> Vec<u64> {
    let mut h = vec![0u64; metric.codes()];
    for c in codes.chunks_exact(2) {
        h[u16::from_le_bytes([c[0], c[1]]) as usize] += 1;
    }
    h
}

/// The values' checksum and histogram (by [`Metric::code`]) of `slots` slots whose records
/// `fill(first, out)` makes, `first` counted from the section's first slot: the records are
/// made and turned into codes in parallel, a chunk at a time, and hashed in order.
pub fn of_records(
    slots: u64,
    metric: Metric,
    fill: impl Fn(Index, &mut [u8]) + Sync,
) -> (u64, Vec<u64>) {
    const PART: usize = 1 << 12;
    let mut hash = XxHash3_64::new();
    let mut histogram = vec![0u64; metric.codes()];
    let (mut records, mut codes_now) = (vec![0u8; CHUNK * 2], vec![0u8; CHUNK * 2]);
    let mut first: Index = 0;
    while first < slots {
        let n = CHUNK.min((slots - first) as usize);
        let (r, c) = (&mut records[..n * 2], &mut codes_now[..n * 2]);
        let h = r
            .par_chunks_mut(PART * 2)
            .zip(c.par_chunks_mut(PART * 2))
            .enumerate()
            .map(|(p, (r, c))| {
                fill(first + (p * PART) as Index, r);
                codes(r, metric, c);
                tally(c, metric)
            })
            .reduce(
                || vec![0u64; metric.codes()],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        histogram.iter_mut().zip(h).for_each(|(x, y)| *x += y);
        hash.write(c);
        first += n as Index;
    }
    (hash.finish(), histogram)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Value;

    #[test]
    fn a_dtm_terminal_loss_and_a_loss_in_two_plies_sum_apart() {
        // Both records hold value byte 129: the move byte tells them apart, and so must
        // the sum, which hashes codes.
        let terminal = Metric::Dtm.record(Value::Loss(0), 0);
        let in_two = Metric::Dtm.record(Value::Loss(2), 7);
        assert_eq!(terminal[0], in_two[0]);
        let sum = |r: [u8; 2]| {
            of_records(3, Metric::Dtm, |_, out| {
                out.copy_from_slice(&r.repeat(out.len() / 2))
            })
            .0
        };
        assert_ne!(sum(terminal), sum(in_two));
        // The best move itself does not count.
        assert_eq!(sum(in_two), sum(Metric::Dtm.record(Value::Loss(2), 9)));
    }

    #[test]
    fn a_dtz_sum_is_the_records_checksum() {
        let records: Vec<u8> = [Value::Win(3), Value::Draw, Value::Loss(4), Value::Illegal]
            .iter()
            .cycle()
            .take(CHUNK + 5)
            .flat_map(|&v| Metric::Dtz.record(v, 0))
            .collect();
        let slots = records.len() as u64 / 2;
        let (sum, histogram) = of_records(slots, Metric::Dtz, |first, out| {
            let at = first as usize * 2;
            out.copy_from_slice(&records[at..at + out.len()])
        });
        assert_eq!(sum, super::super::checksum(&records));
        let draws = records
            .chunks(2)
            .filter(|&r| r == Metric::Dtz.record(Value::Draw, 0))
            .count();
        assert_eq!(histogram[Metric::Dtz.code(Value::Draw)], draws as u64);
        assert_eq!(histogram.iter().sum::<u64>(), slots);
    }
}
