//! Saving and resuming a solve (`solve.rs`): the whole graph in a small binary file (its
//! writer replaces it whole, through `retro_engine::atomic`, so a kill at any moment
//! leaves either the old checkpoint or the new one, never half of one).
//!
//! Layout (little-endian): the magic `RGSOLVE3`; the question, as lines `name=value` (board
//! size, `k`, rules, move limit, the threat search's options and its first limit, the
//! search's widths and depth cost, the root's bitboards, who moves); counters; then per
//! node its bitboards, flags, numbers, how it was settled, its replies and children; last
//! the xxh3-64 of everything before it. A file whose question differs from the one asked is
//! refused, naming the first difference: its nodes were evaluated for another position or
//! other options (their proof numbers mix with the new ones into a graph whose "proven"
//! root need not be proven), and the strategy written relies on the validator repeating our
//! threat searches exactly. The limits of one run (nodes, time) may differ.

use std::collections::HashMap;
use std::io::Read;
use std::time::Duration;

use byteorder::{LittleEndian as LE, ReadBytesExt};

use crate::rules::board::{Board, Key, Rules};

use super::solve::{How, Node, SolveConfig, Solver};

const MAGIC: &[u8; 8] = b"RGSOLVE3";
/// The magics of earlier formats: the first's question left out the search's widths and
/// depth cost, the second's the first threat searches' limit (its search deferred none).
const OLD_MAGICS: [&[u8; 8]; 2] = [b"RGSOLVE1", b"RGSOLVE2"];

/// Why a checkpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a checkpoint, cut short, or its checksum does not match.
    #[error("not a valid checkpoint: {0}")]
    Corrupt(String),
    /// A checkpoint of another question: the first part that differs (`what`), as the
    /// checkpoint has it and as asked.
    #[error("the checkpoint was made with {what} {checkpoint}, not {asked}")]
    Mismatch {
        what: String,
        checkpoint: String,
        asked: String,
    },
}

fn corrupt(what: &str) -> CheckpointError {
    CheckpointError::Corrupt(what.to_string())
}

/// The question a graph answers, part by part (name, value), as stored.
fn question(board: &Board, black_to_move: bool, cfg: &SolveConfig) -> Vec<(String, String)> {
    let t = &cfg.threat;
    let key: String = board
        .key()
        .iter()
        .flatten()
        .map(|w| format!("{w:016x}"))
        .collect();
    [
        (
            "board size",
            format!("{}x{}", board.width(), board.height()),
        ),
        ("k", board.k().to_string()),
        (
            "rules",
            match cfg.rules {
                Rules::Standard => "standard",
                Rules::Freestyle => "freestyle",
            }
            .to_string(),
        ),
        ("black moves limit", cfg.max_moves.to_string()),
        ("threat-search nodes", t.node_limit.to_string()),
        (
            "first threat-search nodes",
            cfg.first_leaf_nodes.to_string(),
        ),
        (
            "threat-search options",
            format!(
                "vct {} extended {} depth {} start {} jump {}",
                t.vct, t.extended, t.vct_depth, t.start_depth, t.jump_depth
            ),
        ),
        ("width", cfg.width.to_string()),
        ("root width", cfg.root_width.to_string()),
        ("depth cost", cfg.depth_cost.to_string()),
        ("position", key),
        (
            "side to move",
            if black_to_move { "black" } else { "white" }.to_string(),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The question as bytes: one `name=value` line a part.
fn encode_question(q: &[(String, String)]) -> Vec<u8> {
    q.iter()
        .flat_map(|(k, v)| format!("{k}={v}\n").into_bytes())
        .collect()
}

/// The question stored, from its bytes.
fn decode_question(bytes: &[u8]) -> Result<Vec<(String, String)>, CheckpointError> {
    let text = std::str::from_utf8(bytes).map_err(|_| corrupt("a question that is not text"))?;
    text.lines()
        .map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| corrupt("a question line without '='"))
        })
        .collect()
}

/// The first part of `asked` that `stored` answers differently, as an error.
fn mismatch(stored: &[(String, String)], asked: &[(String, String)]) -> Option<CheckpointError> {
    for (what, want) in asked {
        let have = stored.iter().find(|(k, _)| k == what).map(|(_, v)| v);
        if have != Some(want) {
            return Some(CheckpointError::Mismatch {
                what: what.clone(),
                checkpoint: have.cloned().unwrap_or_else(|| "(none)".into()),
                asked: want.clone(),
            });
        }
    }
    None
}

fn how_code(h: How) -> (u8, u32) {
    match h {
        How::Open => (0, 0),
        How::Threat(m) => (1, m),
        How::Double => (2, 0),
        How::Zone(m) => (3, m),
        How::AllReplies => (4, 0),
        How::Dead => (5, 0),
        How::Deferred => (6, 0),
    }
}

fn how_of(tag: u8, m: u32) -> Result<How, CheckpointError> {
    Ok(match tag {
        0 => How::Open,
        1 => How::Threat(m),
        2 => How::Double,
        3 => How::Zone(m),
        4 => How::AllReplies,
        5 => How::Dead,
        6 => How::Deferred,
        _ => return Err(corrupt("unknown node kind")),
    })
}

fn read_key(r: &mut &[u8]) -> std::io::Result<Key> {
    let mut k: Key = [[0; 4]; 2];
    for plane in &mut k {
        for w in plane.iter_mut() {
            *w = r.read_u64::<LE>()?;
        }
    }
    Ok(k)
}

impl Solver {
    /// The whole search as bytes.
    pub fn to_checkpoint(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(MAGIC);
        let root = &self.nodes[self.root as usize];
        let q = encode_question(&question(&self.root_board(), root.or, &self.cfg));
        out.extend((q.len() as u32).to_le_bytes());
        out.extend(&q);
        out.extend(self.root.to_le_bytes());
        out.extend(self.threat_searches.to_le_bytes());
        out.extend(self.threat_nodes.to_le_bytes());
        let ms = (self.elapsed_before + self.elapsed_here).as_millis() as u64;
        out.extend(ms.to_le_bytes());
        out.extend((self.nodes.len() as u32).to_le_bytes());
        for n in &self.nodes {
            for plane in n.key {
                for w in plane {
                    out.extend(w.to_le_bytes());
                }
            }
            out.push(n.or as u8 | (n.expanded as u8) << 1);
            out.extend(n.pn.to_le_bytes());
            out.extend(n.dn.to_le_bytes());
            let (tag, m) = how_code(n.how);
            out.push(tag);
            out.extend(m.to_le_bytes());
            out.extend((n.replies.len() as u32).to_le_bytes());
            for r in &n.replies {
                out.extend(r.to_le_bytes());
            }
            out.extend((n.children.len() as u32).to_le_bytes());
            for &(m, c) in &n.children {
                out.extend(m.to_le_bytes());
                out.extend(c.to_le_bytes());
            }
        }
        let sum = twox_hash::XxHash3_64::oneshot(&out);
        out.extend(sum.to_le_bytes());
        out
    }

    /// A search restored from `bytes`, which must answer the same question: `board` with
    /// black to move or not, and the rules, move limit and threat-search options of `cfg`
    /// (the other limits are `cfg`'s).
    pub fn from_checkpoint(
        bytes: &[u8],
        board: &Board,
        black_to_move: bool,
        cfg: SolveConfig,
    ) -> Result<Solver, CheckpointError> {
        if OLD_MAGICS.iter().any(|m| bytes.starts_with(*m)) {
            return Err(corrupt(
                "written by an older retro, whose search differs (start again with --fresh)",
            ));
        }
        if bytes.len() < MAGIC.len() + 8 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(corrupt("no checkpoint header"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut s8 = [0u8; 8];
        s8.copy_from_slice(sum);
        if twox_hash::XxHash3_64::oneshot(body) != u64::from_le_bytes(s8) {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = &body[MAGIC.len()..];
        let cut = |_| corrupt("cut short");
        let qlen = r.read_u32::<LE>().map_err(cut)? as usize;
        let mut q = vec![0u8; qlen.min(r.len())];
        r.read_exact(&mut q).map_err(cut)?;
        let asked = question(board, black_to_move, &cfg);
        if let Some(e) = mismatch(&decode_question(&q)?, &asked) {
            return Err(e);
        }
        let mut s = Solver::new_empty(board, cfg);
        s.root = r.read_u32::<LE>().map_err(cut)?;
        s.threat_searches = r.read_u64::<LE>().map_err(cut)?;
        s.threat_nodes = r.read_u64::<LE>().map_err(cut)?;
        s.elapsed_before = Duration::from_millis(r.read_u64::<LE>().map_err(cut)?);
        let count = r.read_u32::<LE>().map_err(cut)? as usize;
        let mut nodes = Vec::with_capacity(count.min(r.len() / 80));
        let mut table = HashMap::with_capacity(nodes.capacity());
        for id in 0..count {
            let key = read_key(&mut r).map_err(cut)?;
            let flags = r.read_u8().map_err(cut)?;
            let pn = r.read_u64::<LE>().map_err(cut)?;
            let dn = r.read_u64::<LE>().map_err(cut)?;
            let tag = r.read_u8().map_err(cut)?;
            let m = r.read_u32::<LE>().map_err(cut)?;
            let nr = r.read_u32::<LE>().map_err(cut)? as usize;
            let mut replies = Vec::with_capacity(nr.min(r.len() / 2));
            for _ in 0..nr {
                replies.push(r.read_u16::<LE>().map_err(cut)?);
            }
            let nc = r.read_u32::<LE>().map_err(cut)? as usize;
            let mut children = Vec::with_capacity(nc.min(r.len() / 6));
            for _ in 0..nc {
                let mv = r.read_u16::<LE>().map_err(cut)?;
                let c = r.read_u32::<LE>().map_err(cut)?;
                if c as usize >= count {
                    return Err(corrupt("a child out of range"));
                }
                children.push((mv, c));
            }
            table.insert(key, id as u32);
            nodes.push(Node {
                key,
                or: flags & 1 != 0,
                pn,
                dn,
                how: how_of(tag, m)?,
                expanded: flags & 2 != 0,
                replies,
                children,
                parents: Vec::new(),
            });
        }
        if !r.is_empty() || s.root as usize >= nodes.len() {
            return Err(corrupt("unexpected length"));
        }
        if nodes[s.root as usize].key != board.key() {
            return Err(corrupt("the root is not the position"));
        }
        for id in 0..nodes.len() {
            for j in 0..nodes[id].children.len() {
                let c = nodes[id].children[j].1 as usize;
                nodes[c].parents.push(id as u32);
            }
        }
        s.max_stones = nodes
            .iter()
            .map(|n| n.key.iter().flatten().map(|w| w.count_ones()).sum::<u32>())
            .max()
            .unwrap_or(0);
        s.nodes = nodes;
        s.table = table;
        Ok(s)
    }
}
