//! Strategy graphs: the project's JSON format and a reader for the seed's published one.
//!
//! Both share the *nested move* shape (levels alternate):
//!
//! * a **black node** is an object with exactly one key, black's move, whose value is a
//!   white node or an integer leaf;
//! * a **white node** maps each listed white reply to a black node or an integer leaf;
//! * an **integer leaf** `n` says black wins from there with a threat sequence (the seed's
//!   `n`: black's five lands on stone number (stones on the board) + n - 1). The validator
//!   does not trust `n`: it proves the win itself within the move limit.
//!
//! White replies that are not listed must be proven by the validator's search, or be the
//! symmetric image of (or a transposition into) a listed position.
//!
//! **Seed format** (`rv2-gomoku.json`): the file *is* the root black node, e.g.
//! `{"h8": {"h10": {"g7": ...}}}`; 15x15, `k = 5`, standard rules.
//!
//! **Project format**: an object with a `"format"` key:
//!
//! ```json
//! {
//!   "format": "retro-gomoku-strategy/1",
//!   "width": 15, "height": 15, "k": 5,
//!   "rules": "standard",
//!   "max_moves": 35,
//!   "setup": {"black": ["h8"], "white": ["h9"]},
//!   "strategy": {"i9": {"j10": {"g7": 9}}}
//! }
//! ```
//!
//! `rules`, `max_moves` and `setup` are optional (defaults: standard, 35, empty board).
//! `setup` stones must leave black to move (as many black as white stones); its black
//! stones count as black moves already played. `strategy` is a black node.

use serde_json::{Map, Value};

use crate::rules::board::{Board, BoardError, Color, Rules};

/// The project format's tag.
pub const FORMAT_TAG: &str = "retro-gomoku-strategy/1";

/// What the value after a black move is.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterBlack {
    /// Black wins from here by a threat sequence (seed's `n`).
    Leaf(u32),
    /// White's listed replies.
    White(WhiteNode),
}

/// What the value after a white reply is.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterWhite {
    /// Black wins from here by a threat sequence.
    Leaf(u32),
    /// Black's next move.
    Black(Box<BlackNode>),
}

/// Black's move and what follows.
#[derive(Debug, Clone, PartialEq)]
pub struct BlackNode {
    /// The cell.
    pub mv: u16,
    /// The rest.
    pub after: AfterBlack,
}

/// Listed white replies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhiteNode {
    /// (cell, subtree), in file order as read (keys sorted).
    pub replies: Vec<(u16, AfterWhite)>,
}

/// A whole strategy.
#[derive(Debug, Clone)]
pub struct Strategy {
    /// The starting position (black to move); its size and `k` are the game's.
    pub start: Board,
    /// Rules named by the file (the seed format implies standard).
    pub rules: Option<Rules>,
    /// Move limit named by the file.
    pub max_moves: Option<u32>,
    /// Black's first move.
    pub root: BlackNode,
    /// Which format the file was in.
    pub seed_format: bool,
}

/// Errors reading a strategy file. Each names where in the file the problem is.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// Not JSON at all.
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A value of the wrong type or shape.
    #[error("at {path}: {what}")]
    Shape {
        /// Move path to the problem, like `h8 h10 g7`.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// A bad board size or cell name.
    #[error("at {path}: {source}")]
    Board {
        /// Move path.
        path: String,
        /// Details.
        source: BoardError,
    },
}

fn shape(path: &[String], what: impl Into<String>) -> StrategyError {
    StrategyError::Shape {
        path: path_text(path),
        what: what.into(),
    }
}

fn path_text(path: &[String]) -> String {
    if path.is_empty() {
        "the root".to_string()
    } else {
        path.join(" ")
    }
}

fn leaf(v: &Value, path: &[String]) -> Result<Option<u32>, StrategyError> {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(x) if x <= u32::MAX as u64 => Ok(Some(x as u32)),
            _ => Err(shape(
                path,
                format!("leaf {n} is not a non-negative integer"),
            )),
        },
        Value::Object(_) => Ok(None),
        other => Err(shape(
            path,
            format!("expected an object or an integer, found {other}"),
        )),
    }
}

fn cell(board: &Board, name: &str, path: &[String]) -> Result<u16, StrategyError> {
    board
        .parse_cell(name)
        .map(|c| c as u16)
        .map_err(|source| StrategyError::Board {
            path: path_text(path),
            source,
        })
}

fn read_black(
    v: &Value,
    board: &Board,
    path: &mut Vec<String>,
) -> Result<BlackNode, StrategyError> {
    let obj = match v {
        Value::Object(o) => o,
        other => {
            return Err(shape(
                path,
                format!("a black node must be an object, found {other}"),
            ))
        }
    };
    if obj.len() != 1 {
        return Err(shape(
            path,
            format!(
                "a black node must have exactly one move, found {}",
                obj.len()
            ),
        ));
    }
    let (name, val) = obj
        .iter()
        .next()
        .ok_or_else(|| shape(path, "empty black node"))?;
    let mv = cell(board, name, path)?;
    path.push(name.clone());
    let after = match leaf(val, path)? {
        Some(n) => AfterBlack::Leaf(n),
        None => AfterBlack::White(read_white(val, board, path)?),
    };
    path.pop();
    Ok(BlackNode { mv, after })
}

fn read_white(
    v: &Value,
    board: &Board,
    path: &mut Vec<String>,
) -> Result<WhiteNode, StrategyError> {
    let obj = match v {
        Value::Object(o) => o,
        other => {
            return Err(shape(
                path,
                format!("a white node must be an object, found {other}"),
            ))
        }
    };
    let mut replies = Vec::with_capacity(obj.len());
    for (name, val) in obj {
        let mv = cell(board, name, path)?;
        path.push(name.clone());
        let after = match leaf(val, path)? {
            Some(n) => AfterWhite::Leaf(n),
            None => AfterWhite::Black(Box::new(read_black(val, board, path)?)),
        };
        path.pop();
        replies.push((mv, after));
    }
    Ok(WhiteNode { replies })
}

fn get_usize(o: &Map<String, Value>, key: &str, default: usize) -> Result<usize, StrategyError> {
    match o.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .map(|x| x as usize)
            .ok_or_else(|| shape(&[], format!("\"{key}\" must be a non-negative integer"))),
    }
}

/// Any JSON value, refused if an object in it has the same key twice.
struct NoDuplicateKeys;

impl<'de> serde::de::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<NoDuplicateKeys>()?;
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("duplicate key \"{key}\"")));
            }
        }
        Ok(NoDuplicateKeys)
    }
}

impl Strategy {
    /// Parses either format from JSON text.
    pub fn from_json(text: &str) -> Result<Strategy, StrategyError> {
        // `serde_json::Value` keeps the last of duplicate keys; a strategy with two
        // entries for one move is ambiguous, so it is refused, naming the key.
        let mut de = serde_json::Deserializer::from_str(text);
        serde::de::Deserialize::deserialize(&mut de).map(|NoDuplicateKeys| ())?;
        let v: Value = serde_json::from_str(text)?;
        let obj = match &v {
            Value::Object(o) => o,
            other => return Err(shape(&[], format!("expected a JSON object, found {other}"))),
        };
        if obj.contains_key("format") {
            Self::from_project(obj)
        } else {
            let start = Board::gomoku();
            let root = read_black(&v, &start, &mut Vec::new())?;
            Ok(Strategy {
                start,
                rules: Some(Rules::Standard),
                max_moves: None,
                root,
                seed_format: true,
            })
        }
    }

    fn from_project(o: &Map<String, Value>) -> Result<Strategy, StrategyError> {
        match o.get("format").and_then(Value::as_str) {
            Some(FORMAT_TAG) => {}
            other => {
                return Err(shape(
                    &[],
                    format!("unknown format {other:?}, expected {FORMAT_TAG:?}"),
                ))
            }
        }
        let width = get_usize(o, "width", 15)?;
        let height = get_usize(o, "height", 15)?;
        let k = get_usize(o, "k", 5)?;
        let mut start = Board::new(width, height, k).map_err(|source| StrategyError::Board {
            path: "the header".into(),
            source,
        })?;
        let rules = match o.get("rules") {
            None => None,
            Some(Value::String(s)) if s == "standard" => Some(Rules::Standard),
            Some(Value::String(s)) if s == "freestyle" => Some(Rules::Freestyle),
            Some(other) => {
                return Err(shape(
                    &[],
                    format!("\"rules\" must be \"standard\" or \"freestyle\", found {other}"),
                ))
            }
        };
        let max_moves = match o.get("max_moves") {
            None => None,
            Some(v) => Some(
                v.as_u64()
                    .filter(|&x| x <= u32::MAX as u64)
                    .ok_or_else(|| shape(&[], "\"max_moves\" must be a non-negative integer"))?
                    as u32,
            ),
        };
        if let Some(setup) = o.get("setup") {
            let s = setup
                .as_object()
                .ok_or_else(|| shape(&[], "\"setup\" must be an object"))?;
            if let Some(key) = s.keys().find(|k| *k != "black" && *k != "white") {
                return Err(shape(
                    &["setup".to_string()],
                    format!("unknown key \"{key}\" (expected \"black\" and \"white\")"),
                ));
            }
            for (key, color) in [("black", Color::Black), ("white", Color::White)] {
                let Some(list) = s.get(key) else { continue };
                let list = list.as_array().ok_or_else(|| {
                    shape(&[], format!("\"setup.{key}\" must be a list of cells"))
                })?;
                for item in list {
                    let name = item.as_str().ok_or_else(|| {
                        shape(&[], format!("\"setup.{key}\" must hold cell names"))
                    })?;
                    let c = cell(&start, name, &["setup".to_string()])? as usize;
                    if !start.is_empty(c) {
                        return Err(shape(
                            &["setup".to_string()],
                            format!("{name} is given twice"),
                        ));
                    }
                    start.place(c, color);
                }
            }
            if start.count(Color::Black) != start.count(Color::White) {
                return Err(shape(
                    &["setup".to_string()],
                    "black must be to move: give as many black as white stones",
                ));
            }
        }
        let tree = o
            .get("strategy")
            .ok_or_else(|| shape(&[], "missing \"strategy\""))?;
        let root = read_black(tree, &start, &mut Vec::new())?;
        Ok(Strategy {
            start,
            rules,
            max_moves,
            root,
            seed_format: false,
        })
    }

    /// Writes the strategy in the project format.
    pub fn to_project_json(&self) -> Value {
        let b = &self.start;
        let mut o = Map::new();
        o.insert("format".into(), FORMAT_TAG.into());
        o.insert("width".into(), b.width().into());
        o.insert("height".into(), b.height().into());
        o.insert("k".into(), b.k().into());
        if let Some(r) = self.rules {
            o.insert("rules".into(), r.to_string().into());
        }
        if let Some(m) = self.max_moves {
            o.insert("max_moves".into(), m.into());
        }
        if b.stones() > 0 {
            let mut s = Map::new();
            for (key, color) in [("black", Color::Black), ("white", Color::White)] {
                let cells: Vec<Value> = (0..b.cells())
                    .filter(|&c| b.get(c) == Some(color))
                    .map(|c| b.cell_name(c).into())
                    .collect();
                s.insert(key.into(), Value::Array(cells));
            }
            o.insert("setup".into(), Value::Object(s));
        }
        o.insert("strategy".into(), black_json(&self.root, b));
        Value::Object(o)
    }
}

fn black_json(n: &BlackNode, b: &Board) -> Value {
    let v = match &n.after {
        AfterBlack::Leaf(x) => Value::from(*x),
        AfterBlack::White(w) => {
            let mut m = Map::new();
            for (c, a) in &w.replies {
                let val = match a {
                    AfterWhite::Leaf(x) => Value::from(*x),
                    AfterWhite::Black(bn) => black_json(bn, b),
                };
                m.insert(b.cell_name(*c as usize), val);
            }
            Value::Object(m)
        }
    };
    let mut m = Map::new();
    m.insert(b.cell_name(n.mv as usize), v);
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_seed_format() {
        let s = Strategy::from_json(r#"{"h8":{"h10":{"g7":{"b10":{"g8":17}}},"i9":3}}"#)
            .expect("parse");
        assert!(s.seed_format);
        assert_eq!(s.root.mv as usize, s.start.cell(7, 7));
        match &s.root.after {
            AfterBlack::White(w) => assert_eq!(w.replies.len(), 2),
            _ => panic!("expected a white node"),
        }
    }

    #[test]
    fn rejects_bad_files_with_a_path() {
        for (text, needle) in [
            ("[1,2]", "expected a JSON object"),
            (r#"{"h8":{"h10":{"g7":1,"g8":2}}}"#, "h8 h10"),
            (r#"{"h8":{"z99":3}}"#, "bad cell name"),
            (r#"{"h8":{"h9":-1}}"#, "h8 h9"),
            (r#"{"h8":{"h9":"x"}}"#, "h8 h9"),
            ("{", "not valid JSON"),
            (r#"{"format":"nope","strategy":{}}"#, "unknown format"),
            (
                r#"{"format":"retro-gomoku-strategy/1","width":40,"strategy":{"a1":1}}"#,
                "unsupported board",
            ),
            (
                r#"{"format":"retro-gomoku-strategy/1","setup":{"black":["a1"]},"strategy":{"a2":1}}"#,
                "black must be to move",
            ),
        ] {
            let e = Strategy::from_json(text).expect_err(text).to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn duplicate_and_unknown_keys_are_refused_by_name() {
        let dup = r#"{"h8":{"h9":{"g9":1},"h9":{"g8":1}}}"#;
        let e = Strategy::from_json(dup).expect_err("duplicate").to_string();
        assert!(e.contains("duplicate key \"h9\""), "{e}");
        let unknown = r#"{"format":"retro-gomoku-strategy/1","setup":{"black":[],"whites":[]},"strategy":{"h8":1}}"#;
        let e = Strategy::from_json(unknown)
            .expect_err("unknown")
            .to_string();
        assert!(e.contains("unknown key \"whites\""), "{e}");
    }

    #[test]
    fn project_format_roundtrip() {
        let text = r#"{"format":"retro-gomoku-strategy/1","width":9,"height":9,"k":5,"rules":"freestyle",
            "max_moves":12,"setup":{"black":["e5"],"white":["e6"]},"strategy":{"d4":{"c3":4,"f6":{"g7":2}}}}"#;
        let s = Strategy::from_json(text).expect("parse");
        assert_eq!(s.rules, Some(Rules::Freestyle));
        assert_eq!(s.max_moves, Some(12));
        assert_eq!(s.start.stones(), 2);
        let again = Strategy::from_json(&s.to_project_json().to_string()).expect("reparse");
        assert_eq!(again.root, s.root);
        assert_eq!(again.start, s.start);
    }
}
