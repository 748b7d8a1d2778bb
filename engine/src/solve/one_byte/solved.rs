//! A solved table, whose records are made as they are read.

use std::sync::LazyLock;

use rayon::prelude::*;

use super::super::bytes::Bytes;
use super::deep::Deep;
use super::packing::Packing;
use super::state::Bits;
use super::{Passes, Values, ILLEGAL, KEEP};
use crate::game::{Index, Records, Value, NO_MOVE};
use crate::table::metric::tally;
use crate::table::Metric;

/// A solved table: one byte a slot, which also tells the illegal slots. Each
/// record, best move included, is made when it is read ([`Records::fill`]), so writing the
/// table streams it.
pub struct Solved<P> {
    pub(super) passes: P,
    pub(super) value: Bytes,
    /// The values beyond a byte ([`Packing::Plies`]).
    pub(super) deep: Deep,
    pub(super) packing: Packing,
    pub(super) illegal: Illegal,
}

/// How a solved table tells its illegal slots.
pub(super) enum Illegal {
    /// By the byte of a win in 253 plies ([`KEEP`]), which no slot holds unless the
    /// solve got that deep: the best moves then read one byte a move, no bit.
    Byte,
    /// By the checkmates' byte with a bit set: a table that deep.
    Bits(Bits),
}

impl<P> Solved<P> {
    /// True where each byte is one value ([`code_value`]): values in moves, the illegal
    /// slots [`KEEP`]. The bytes can then be read as they are.
    fn bytes_are_values(&self) -> bool {
        self.packing == Packing::Moves && matches!(self.illegal, Illegal::Byte)
    }

    /// The value of every slot holding byte `b`, where the byte alone tells it: not the
    /// deep byte of plies (nor a byte plies give no value), nor the checkmates' byte where
    /// a bit marks the illegal slots among them. As [`Solved::value_of`] reads.
    fn byte_value(&self, b: u8) -> Option<Value> {
        match (&self.illegal, self.packing, b) {
            (Illegal::Byte, _, KEEP) => Some(Value::Illegal),
            (Illegal::Bits(_), _, ILLEGAL) => None,
            (_, Packing::Plies, 0..=127 | 129..=253) => Some(Packing::Plies.unpack(b)),
            (_, Packing::Plies, _) => None,
            (_, Packing::Moves, b) => Some(Packing::Moves.unpack(b)),
        }
    }

    #[inline]
    fn value_of(&self, i: usize) -> Value {
        match (self.value.get(i), &self.illegal) {
            (KEEP, Illegal::Byte) => Value::Illegal,
            (ILLEGAL, Illegal::Bits(b)) if b.get(i) => Value::Illegal,
            (b, _) => self.deep.read(self.packing, b, i as Index),
        }
    }
}

impl<P: Passes> Records for Solved<P> {
    fn slots(&self) -> u64 {
        self.value.len() as u64
    }

    fn value(&self, i: Index) -> Value {
        self.value_of(i as usize)
    }

    /// The bytes are counted, then each byte's count goes to its value's code; the slots
    /// whose byte alone does not tell their value (the deep byte of plies, the checkmates'
    /// byte where a bit marks the illegal slots among them) are read one by one.
    fn histogram(&self, lo: Index, hi: Index, metric: Metric) -> Option<Vec<u64>> {
        const STEP: Index = 1 << 16;
        let read: [Option<Value>; 256] = std::array::from_fn(|b| self.byte_value(b as u8));
        let bins = metric.codes();
        let h = (0..(hi - lo).div_ceil(STEP))
            .into_par_iter()
            .map(|c| {
                let (a, b) = (lo + c * STEP, (lo + (c + 1) * STEP).min(hi));
                let mut buf = vec![0u8; (b - a) as usize];
                self.value.copy_to(a as usize, &mut buf);
                let bytes = tally::<256>(buf.iter().map(|&x| x as usize));
                let mut h = vec![0u64; bins];
                for (byte, &n) in bytes.iter().enumerate().filter(|&(_, &n)| n > 0) {
                    match read[byte] {
                        Some(v) => h[metric.code(v)] += n,
                        None => (buf.iter().enumerate())
                            .filter(|&(_, &x)| x as usize == byte)
                            .for_each(|(j, _)| h[metric.code(self.value_of(a as usize + j))] += 1),
                    }
                }
                h
            })
            .reduce(
                || vec![0u64; bins],
                |mut x, y| {
                    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
                    x
                },
            );
        Some(h)
    }

    /// The values alone: no move is looked for. A record's move byte only tells a
    /// terminal loss ([`NO_MOVE`]) from a loss in two plies (any other byte: 1), as the
    /// value byte they share needs.
    fn fill_values(&self, first: Index, out: &mut [u8]) {
        if self.packing == Packing::Plies {
            return self.fill(first, out);
        }
        let n = out.len() / 2;
        let mut bytes = vec![0u8; n];
        self.value.copy_to(first as usize, &mut bytes);
        if self.bytes_are_values() {
            for (rec, &c) in out.chunks_exact_mut(2).zip(&bytes) {
                rec[0] = RECORD_BYTE[c as usize];
                rec[1] = u8::from(c != KEEP && c != 0);
            }
        } else {
            for (k, rec) in out.chunks_exact_mut(2).enumerate() {
                let v = self.value_of(first as usize + k);
                rec[0] = v.to_byte();
                rec[1] = u8::from(!matches!(v, Value::Illegal | Value::Loss(0)));
            }
        }
    }

    /// The best move is the first move, in the game's move order, achieving the value:
    /// the same bytes whatever the thread count or the ranges asked for, and the same as
    /// the two-queue solver's. A table of distance to zeroing stores none
    /// ([`Metric::Dtz`]: the restarting solver's records).
    fn fill(&self, first: Index, out: &mut [u8]) {
        let value = |j: Index| self.value_of(j as usize);
        let values = Read(self);
        let n = (out.len() / 2) as Index;
        if self.packing == Packing::Plies {
            // Each byte's record looked up, where the byte alone tells the value.
            let records: [Option<[u8; 2]>; 256] = std::array::from_fn(|b| {
                (self.byte_value(b as u8)).map(|v| Metric::Dtz.record(v, 0))
            });
            let mut bytes = vec![0u8; n as usize];
            self.value.copy_to(first as usize, &mut bytes);
            for (k, (rec, &b)) in out.chunks_exact_mut(2).zip(&bytes).enumerate() {
                let r = records[b as usize]
                    .unwrap_or_else(|| Metric::Dtz.record(value(first + k as Index), 0));
                rec.copy_from_slice(&r);
            }
            return;
        }
        let g = self.passes.group() as Index;
        // The groups overlapping the range, each with the mask of its slots in it that
        // have a move to find (terminal losses have none, illegal slots no record).
        let mut start = first / g * g;
        while start < first + n {
            let mut mask = 0u64;
            let (lo, hi) = (start.max(first), (start + g).min(first + n));
            let mut codes = [0u8; 64];
            if values.codes(lo, &mut codes[..(hi - lo) as usize]) {
                // The bytes are the values: each record's first byte from a table.
                for (i, &c) in (lo..hi).zip(&codes) {
                    let k = (i - first) as usize;
                    out[2 * k] = RECORD_BYTE[c as usize];
                    out[2 * k + 1] = NO_MOVE;
                    // Not illegal, not a checkmate.
                    if c != KEEP && c != ILLEGAL {
                        mask |= 1 << (i - start);
                    }
                }
            } else {
                for i in lo..hi {
                    let v = value(i);
                    let k = (i - first) as usize;
                    out[2 * k] = v.to_byte();
                    out[2 * k + 1] = NO_MOVE;
                    if !matches!(v, Value::Illegal | Value::Loss(0)) {
                        mask |= 1 << (i - start);
                    }
                }
            }
            // The next group's far reads start now, to arrive while this one is worked on.
            if start + g < first + n {
                self.passes
                    .group_reads(start + g, |q| self.value.prefetch(q as usize));
            }
            if mask != 0 {
                self.passes
                    .group_first_moves(start, mask, &values, |b, mv| {
                        out[2 * (start + b - first) as usize + 1] = mv;
                    });
            }
            start += g;
        }
    }
}

/// Per code of [`Read`] (a byte of the solve, values in moves, the illegal slots
/// [`KEEP`]), the first byte of its record.
static RECORD_BYTE: LazyLock<[u8; 256]> =
    LazyLock::new(|| std::array::from_fn(|b| CODE_VALUE[b].to_byte()));

/// [`code_value`] of each byte, looked up: the best-move pass asks it of every slot.
static CODE_VALUE: LazyLock<[Value; 256]> =
    LazyLock::new(|| std::array::from_fn(|b| code_value(b as u8)));

/// The value of byte `b` where the bytes are the values ([`Solved::bytes_are_values`]).
fn code_value(b: u8) -> Value {
    match b {
        KEEP => Value::Illegal,
        b => Value::from_packed(b),
    }
}

/// The values of a solved table as the best-move pass reads them: where the bytes alone
/// tell every value (each legal value its byte, the illegal slots [`KEEP`]), the bytes.
struct Read<'a, P>(&'a Solved<P>);

impl<P> Values for Read<'_, P> {
    fn value(&self, q: Index) -> Value {
        self.0.value_of(q as usize)
    }

    fn codes(&self, q: Index, out: &mut [u8]) -> bool {
        if !self.0.bytes_are_values() {
            return false;
        }
        self.0.value.copy_to(q as usize, out);
        true
    }

    fn code(&self, v: Value) -> u8 {
        match v {
            Value::Illegal => KEEP,
            v => self.0.packing.pack(v),
        }
    }

    fn code_value(&self, c: u8) -> Value {
        CODE_VALUE[c as usize]
    }

    fn ahead_code(&self, c: u8) -> u8 {
        AHEAD_CODE[c as usize]
    }
}

/// [`Values::ahead_code`] of [`Read`]'s codes, looked up: the best-move pass asks it of
/// every slot. [`Read::code`] of the value sought, in moves (the only packing whose bytes
/// are codes).
static AHEAD_CODE: LazyLock<[u8; 256]> = LazyLock::new(|| {
    std::array::from_fn(|c| match CODE_VALUE[c].ahead() {
        Value::Illegal => KEEP,
        v => Packing::Moves.pack(v),
    })
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The code sought from each code is that of the value a move must reach to back up
    /// to the code's own value, wherever there is such a value (not for a checkmate, the
    /// illegal slots, or a loss in 254 plies, whose move would reach the illegal slots'
    /// byte: no table whose bytes are codes holds one).
    #[test]
    fn ahead_codes_back_up_to_their_code() {
        let mut sought = 0;
        for c in 0..=255u8 {
            let own = CODE_VALUE[c as usize];
            let a = AHEAD_CODE[c as usize];
            match own {
                Value::Illegal | Value::Loss(0) => assert_eq!(a, KEEP, "code {c}"),
                Value::Loss(254) => {}
                v => {
                    assert_eq!(CODE_VALUE[a as usize].back(), v, "code {c}");
                    sought += 1;
                }
            }
        }
        // Every byte but the checkmate's, the illegal slots' and the 254-ply loss's.
        assert_eq!(sought, 253);
    }
}
