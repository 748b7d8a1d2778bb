//! Strategy graphs from exhaustive minimax (`rules/brute.rs`) on small boards, for tests:
//! the validator must accept what the referee proves.

use crate::rules::board::Board;
use crate::rules::brute::Exhaustive;
use crate::search::threat::{prove_win_with, SearchConfig};

use super::strategy::{AfterBlack, AfterWhite, BlackNode, WhiteNode};

/// A winning strategy for black (the attacker must be black) from `b`, black to move,
/// within `d` black stones: black nodes pick the first move that wins soonest; white
/// replies are listed only when the threat search (with `cfg`) cannot prove them, and
/// positions the search proves become integer leaves. `None` if black does not win.
pub(crate) fn export(
    ex: &mut Exhaustive,
    b: &mut Board,
    d: u32,
    cfg: SearchConfig,
) -> Option<BlackNode> {
    let mut best = None;
    for dd in 1..=d {
        if ex.wins(b, dd) {
            best = Some(dd);
            break;
        }
    }
    let dd = best?;
    let att = ex.attacker();
    let empties: Vec<usize> = (0..b.cells()).filter(|&c| b.is_empty(c)).collect();
    for &c in &empties {
        b.place(c, att);
        let five = b.five_through(c, att, ex.rules());
        let ok = five || (dd > 1 && ex.wins_defender_to_move(b, dd - 1));
        if !ok {
            b.remove(c, att);
            continue;
        }
        let after = if five {
            AfterBlack::Leaf(1)
        } else {
            let mut replies = Vec::new();
            for &w in &empties {
                if w == c {
                    continue;
                }
                b.place(w, att.other());
                if !prove_win_with(b, att, ex.rules(), dd - 1, cfg).proven {
                    let sub = export(ex, b, dd - 1, cfg).map(|n| AfterWhite::Black(Box::new(n)));
                    if let Some(s) = sub {
                        replies.push((w as u16, s));
                    }
                }
                b.remove(w, att.other());
            }
            AfterBlack::White(WhiteNode { replies })
        };
        b.remove(c, att);
        return Some(BlackNode {
            mv: c as u16,
            after,
        });
    }
    None
}
