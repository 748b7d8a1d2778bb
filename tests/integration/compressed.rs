//! Compressed tables (`.rtbc`): every answer the same as the dense table's, best moves
//! and every move's value included; the dense table rebuilt byte for byte; compressed
//! sub-tables read by `generate`; every part of a damaged file refused; the real binary's
//! `compress`, `decompress`, `info` and `verify`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, Index};
use retro::progress::Silent;
use retro::table::{compressed, Table, TableError};

use super::common::{chess_all4, output_text, retro, stdout};

/// The materials compared in full, and every table they read.
const MATERIALS: [&str; 5] = ["KQvK", "KRvK", "KPvK", "KQvKR", "KPvKP"];

/// A folder holding only compressed tables: those of [`MATERIALS`] and of every table
/// they lead into, made from the shared dense set.
pub(super) fn compressed_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let targets: Vec<Material> = MATERIALS
            .iter()
            .map(|m| Material::parse(m).unwrap())
            .collect();
        for m in retro::chess::plan::closure(&targets) {
            let table = Table::open(&chess_all4().join(format!("{m}.rtb"))).unwrap();
            compressed::compress(&table, dir.path(), &Silent).unwrap();
        }
        dir
    })
    .path()
}

pub(super) fn compressed_file(name: &str) -> PathBuf {
    compressed_dir().join(format!("{name}.{}", compressed::EXTENSION))
}

/// Every slot of each material: the same probe answer (value, best move, every move's
/// value, in order) from the compressed table as from the dense one. KPvKP holds en
/// passant, whose best moves are the hardest to find again.
#[test]
fn every_answer_is_the_dense_tables() {
    for name in MATERIALS {
        let m = Material::parse(name).unwrap();
        let dense_game = Chess::open(&m, chess_all4()).unwrap();
        let small_game = Chess::open(&m, compressed_dir()).unwrap();
        let dense = Table::open(&chess_all4().join(format!("{name}.rtb"))).unwrap();
        let small = Table::open(&compressed_file(name)).unwrap();
        assert!(small.is_compressed() && !dense.is_compressed());
        assert_eq!(
            small.header(),
            dense.header(),
            "{name}: the dense header kept"
        );
        // Every slot, but every third of KPvKP's 9.4 million (the test's time).
        let step = if name == "KPvKP" { 3 } else { 1 };
        let n = dense_game.size();
        let differ: Vec<Index> = (0..n.div_ceil(step))
            .into_par_iter()
            .map(|k| k * step)
            .filter(|&i| {
                let Some(pos) = dense_game.decode(i) else {
                    return false;
                };
                retro::probe::probe(&dense_game, &dense, &pos)
                    != retro::probe::probe(&small_game, &small, &pos)
            })
            .take_any(5)
            .collect();
        assert!(
            differ.is_empty(),
            "{name}: slots {differ:?} answer differently"
        );
    }
    // The answers in JSON, through the chess router, on positions both colours to move.
    let dense = retro::chess::router::Router::new(chess_all4());
    let small = retro::chess::router::Router::new(compressed_dir());
    for fen in [
        "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
        "8/8/8/8/8/2k5/8/KQ5r b - - 0 1",
        "8/8/4k3/8/2p5/8/1P6/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        "8/2p5/8/1P6/8/8/8/K6k b - - 0 1",
    ] {
        assert_eq!(
            dense.probe(fen).unwrap().json(),
            small.probe(fen).unwrap().json(),
            "{fen}"
        );
    }
}

/// `decompress` gives back the dense file byte for byte; `generate` reads compressed
/// sub-tables and writes the same table as from dense ones.
#[test]
fn the_dense_table_comes_back_and_compressed_sub_tables_serve_generation() {
    let out = tempfile::tempdir().unwrap();
    let loaded = retro::registry::open_file(&compressed_file("KQvKR"), true).unwrap();
    let (path, _) =
        retro::rebuild::decompress(&*loaded.plugin, &loaded.table, out.path(), &Silent).unwrap();
    let original = std::fs::read(chess_all4().join("KQvKR.rtb")).unwrap();
    assert!(std::fs::read(&path).unwrap() == original, "KQvKR rebuilt");
    // KQvKR made again over the compressed sub-tables only.
    let fresh = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(compressed_dir()).unwrap() {
        let p = e.unwrap().path();
        if p.file_stem() != Some("KQvKR".as_ref()) {
            std::fs::copy(&p, fresh.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    let plugin = retro::registry::plugin_in("KQvKR", fresh.path()).unwrap();
    let done = retro::generate::generate(&*plugin, fresh.path(), &Silent).unwrap();
    assert!(
        std::fs::read(done.path).unwrap() == original,
        "KQvKR generated anew"
    );
}

/// A copy of a compressed table with one byte flipped at `at` (from the end if negative),
/// beside intact copies of the tables it reads.
fn flipped(name: &str, at: i64) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for sub in Material::parse(name).unwrap().children() {
        let file = format!("{sub}.{}", compressed::EXTENSION);
        std::fs::copy(compressed_dir().join(&file), dir.path().join(&file)).unwrap();
    }
    let path = dir.path().join(format!("{name}.{}", compressed::EXTENSION));
    let mut bytes = std::fs::read(compressed_file(name)).unwrap();
    let k = if at < 0 { bytes.len() as i64 + at } else { at } as usize;
    bytes[k] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// A flip anywhere is refused: in the header, the dense header inside it, the block
/// index, or a block's data; and a cut file. `probe` exits 2 naming the file, `info`
/// and `verify` name the damaged block.
#[test]
fn every_part_of_a_damaged_file_is_refused() {
    let bytes = std::fs::read(compressed_file("KQvKR")).unwrap();
    let hlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as i64;
    let dlen = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as i64;
    for (part, at) in [
        ("the block size", 16),
        ("the dense header", 24 + dlen / 2),
        ("the block index", 24 + dlen + 8 + 13 * 3 + 5),
        ("a block's form", 24 + dlen + 8 + 13 * 3 + 12),
        ("the header checksum", hlen - 3),
        ("the first block", hlen + 10),
        ("the last block", -1),
    ] {
        let (dir, path) = flipped("KQvKR", at);
        let err = Table::open(&path).unwrap_err();
        match (part, &err) {
            ("the first block" | "the last block", TableError::Block { detail, .. }) => {
                assert!(detail.contains("checksum mismatch"), "{part}: {err}")
            }
            ("the first block" | "the last block", _) => panic!("{part}: {err}"),
            (_, TableError::Checksum { part: p, .. }) => assert_eq!(p, "header", "{part}"),
            _ => panic!("{part}: {err}"),
        }
        // `info` reads a damaged block's checksum and says so (exit 1, as for a dense
        // table's payload); a damaged header it cannot read at all (exit 2).
        let o = retro(&["info", path.to_str().unwrap()]);
        if part.ends_with("block") {
            assert_eq!(o.status.code(), Some(1), "{part}: {}", output_text(&o));
            assert!(stdout(&o).contains("checksum:  MISMATCH in "), "{part}");
            assert!(stdout(&o).contains("(block "), "{part}");
        } else {
            assert_eq!(o.status.code(), Some(2), "{part}: {}", output_text(&o));
        }
        let o = retro(&[
            "probe",
            "chess",
            "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
            "--tables",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{part}: {}", output_text(&o));
        assert!(
            output_text(&o).contains("KQvKR.rtbc"),
            "{part}: {}",
            output_text(&o)
        );
        if part == "the last block" {
            let o = retro(&["verify", path.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
            let blocks = Table::open(&compressed_file("KQvKR"))
                .unwrap()
                .compressed_blocks()
                .unwrap();
            let text = stdout(&o);
            assert!(
                text.contains(&format!("black (block {}", blocks - 1)),
                "{text}"
            );
        }
    }
    // Cut short, and a dense table's bytes under the compressed name.
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("KQvKR.rtbc");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    assert!(matches!(Table::open(&cut), Err(TableError::Size { .. })));
    let o = retro(&["info", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).contains("truncated"), "{}", output_text(&o));
}

/// A file of compressed format version 1 (blocks without a form) is refused, naming the
/// command that makes it again, by the library and the command line.
#[test]
fn an_older_compressed_format_is_refused_with_the_command_to_remake_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KQvKR.rtbc");
    let mut bytes = std::fs::read(compressed_file("KQvKR")).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    let err = Table::open(&path).unwrap_err();
    assert!(
        matches!(
            err,
            TableError::OldCompressed {
                found: 1,
                expected: compressed::VERSION,
                ..
            }
        ),
        "{err}"
    );
    let remake = format!("retro compress {}", dir.path().join("KQvKR.rtb").display());
    assert!(err.to_string().contains(&remake), "{err}");
    let o = retro(&["info", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).contains(&remake), "{}", output_text(&o));
}

/// The real binary: `compress` beside the dense file, `info` and `verify` on the
/// compressed one, `decompress` into another folder, identical to the original.
#[test]
fn compress_and_decompress_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["KQvK", "KRvK", "KQvKR"] {
        std::fs::copy(
            chess_all4().join(format!("{name}.rtb")),
            dir.path().join(format!("{name}.rtb")),
        )
        .unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let o = retro(&["compress", "--all", d]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(stdout(&o).contains("3 tables:"), "{}", stdout(&o));
    let small = dir.path().join("KQvKR.rtbc");
    let (dense_len, small_len) = (
        std::fs::metadata(dir.path().join("KQvKR.rtb"))
            .unwrap()
            .len(),
        std::fs::metadata(&small).unwrap().len(),
    );
    assert!(small_len * 5 < dense_len, "{small_len} vs {dense_len}");
    let o = retro(&["info", small.to_str().unwrap()]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(stdout(&o).contains("retro compressed table version 2"));
    assert!(stdout(&o).contains("checksum:  ok"));
    let o = retro(&["verify", small.to_str().unwrap()]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(stdout(&o).contains("statistics: ok"), "{}", stdout(&o));
    let out = tempfile::tempdir().unwrap();
    // The sub-tables are read beside the compressed file: here the dense ones.
    let o = retro(&[
        "decompress",
        small.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(
        std::fs::read(out.path().join("KQvKR.rtb")).unwrap()
            == std::fs::read(chess_all4().join("KQvKR.rtb")).unwrap()
    );
    // Not a compressed table; already compressed.
    let o = retro(&["decompress", dir.path().join("KQvK.rtb").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).contains("is not a compressed table"));
    let o = retro(&["compress", small.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(output_text(&o).contains("already compressed"));
}

/// `retro serve` over compressed tables: listed with their compressed size, answering as
/// from the dense ones.
#[test]
fn the_server_serves_compressed_tables() {
    let small = retro::serve::AppState::load(compressed_dir());
    let dense = retro::serve::AppState::load(chess_all4());
    let list: serde_json::Value = serde_json::from_slice(&small.list_json()).unwrap();
    let kqvkr = list["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "KQvKR")
        .unwrap()
        .clone();
    assert_eq!(
        kqvkr["bytes"],
        std::fs::metadata(compressed_file("KQvKR")).unwrap().len()
    );
    assert_eq!(kqvkr["url"], "/tables/KQvKR.rtbc");
    assert_eq!(kqvkr["compressed"], true);
    let list: serde_json::Value = serde_json::from_slice(&dense.list_json()).unwrap();
    assert!(list["tables"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["compressed"] == false));
    // Its statistics page: the same figures and longest positions, and intact blocks.
    let stats = |s: &retro::serve::AppState| {
        let t = retro::serve::stats::table_stats("KQvKR", s.table("KQvKR").unwrap());
        let mut j = serde_json::to_value(t).unwrap();
        j["bytes"] = serde_json::Value::Null;
        j
    };
    let (a, b) = (stats(&small), stats(&dense));
    assert_eq!(a, b);
    assert_eq!(a["sections"][0]["checksum_ok"], true);
    for fen in [
        "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
        "8/8/8/8/8/2k5/8/KQ5r b - - 0 1",
    ] {
        let answer = |s: &retro::serve::AppState| {
            let t = s.table("KQvKR").unwrap();
            t.plugin.probe(&t.table, fen).unwrap().json()
        };
        assert_eq!(answer(&small), answer(&dense), "{fen}");
    }
}
