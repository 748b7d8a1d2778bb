//! The squares between two squares, and the whole line through them: what a legality test
//! needs to settle a move without playing it (a check is answered on the segment up to the
//! checker; a pinned piece stays on its line through the king).

/// `BETWEEN[a][b]`: the squares strictly between `a` and `b` if they share a rank, file or
/// diagonal, else none.
pub static BETWEEN: [[u64; 64]; 64] = build(false);

/// `LINE[a][b]`: every square of the rank, file or diagonal through `a` and `b`, both
/// included, edge to edge; none if they share no line (or are the same square).
pub static LINE: [[u64; 64]; 64] = build(true);

const fn build(whole: bool) -> [[u64; 64]; 64] {
    let mut t = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            t[a][b] = segment(a as i8, b as i8, whole);
            b += 1;
        }
        a += 1;
    }
    t
}

const fn segment(a: i8, b: i8, whole: bool) -> u64 {
    let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
    let (df, dr) = (fb - fa, rb - ra);
    if a == b || !(df == 0 || dr == 0 || df == dr || df == -dr) {
        return 0;
    }
    let (sf, sr) = (df.signum(), dr.signum());
    let mut bits = 0u64;
    if whole {
        // Back to the edge behind `a`, then forward to the edge beyond `b`.
        let (mut f, mut r) = (fa, ra);
        while f - sf >= 0 && f - sf < 8 && r - sr >= 0 && r - sr < 8 {
            f -= sf;
            r -= sr;
        }
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            bits |= 1u64 << (r * 8 + f);
            f += sf;
            r += sr;
        }
    } else {
        let (mut f, mut r) = (fa + sf, ra + sr);
        while f != fb || r != rb {
            bits |= 1u64 << (r * 8 + f);
            f += sf;
            r += sr;
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_lines() {
        // a1-h8: six squares between, eight on the line.
        assert_eq!(BETWEEN[0][63].count_ones(), 6);
        assert_eq!(LINE[0][63].count_ones(), 8);
        // b1 and c3 share no line.
        assert_eq!(BETWEEN[1][18], 0);
        assert_eq!(LINE[1][18], 0);
        // Neighbours: nothing between, the whole rank as the line.
        assert_eq!(BETWEEN[0][1], 0);
        assert_eq!(LINE[0][1], 0xff);
        // Symmetric, and the line holds its ends and what lies between.
        for a in 0..64 {
            for b in 0..64 {
                assert_eq!(BETWEEN[a][b], BETWEEN[b][a]);
                assert_eq!(LINE[a][b], LINE[b][a]);
                if LINE[a][b] != 0 {
                    assert_eq!(LINE[a][b] & BETWEEN[a][b], BETWEEN[a][b]);
                    assert!(LINE[a][b] & (1u64 << a) != 0, "the line holds its end");
                }
            }
        }
        // e1-e8 (squares 4 and 60): the e-file.
        assert_eq!(LINE[4][60], 0x1010_1010_1010_1010);
        assert_eq!(BETWEEN[4][60], 0x0010_1010_1010_1000);
    }
}
