//! A whole table set made compressed: `retro serve`'s default set (every chess table of up
//! to 4 pieces, DTM and DTZ, made by the set runner `retro generate --metric both
//! --compress` uses) holds only compressed files, each the bytes `retro compress` makes of
//! the dense table, answering every probe as the dense set does; compressed DTZ tables give
//! every slot's value and the dense file back; a damaged one is refused with its block
//! named; `retro generate --compress` killed at any moment resumes with nothing lost or
//! damaged, and ends with the default set's very files.

use std::io::{BufRead, BufReader};
use std::path::Path;

use rayon::prelude::*;

use retro::chess::material::Material;
use retro::chess::router::Router;
use retro::game::{Game, Index};
use retro::progress::Silent;
use retro::table::compressed::{self, Sides};
use retro::table::{Table, TableError};

use super::common::{chess_all4, default_tables, output_text, retro, stdout};

/// The zstd level the default set is made at, for the command lines that make the same
/// files.
fn level() -> String {
    retro::serve::DEFAULT_SET_LEVEL.to_string()
}

/// The chess table files of `dir` (the default set's folder also holds KBNK and the boards),
/// sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with('K'))
        .collect();
    names.sort();
    names
}

/// The set of up to 4 pieces, DTM and DTZ, compressed: made once a run, by `retro serve` on
/// an empty folder (shared with the tests of the default set).
fn set_dir() -> &'static Path {
    &default_tables().dir
}

/// Only compressed files are left, one per table, each storing one side to move and the
/// very bytes `compress` makes of the dense table (the DTM tables: of the shared set's
/// files; the DTZ tables: their dense headers, payload checksums included, are those of
/// DTZ tables made from dense sub-tables). Every probe of the DTZ tables' materials, on
/// every 499th slot, answers as from the dense tables, DTZ included.
#[test]
fn the_set_made_compressed_is_the_dense_set_compressed() {
    let dir = set_dir();
    let names = files(dir);
    let all = Material::all(4);
    let mut want: Vec<String> = (all.iter())
        .flat_map(|m| [format!("{m}.rtbc"), format!("{m}.dtz.rtbc")])
        .collect();
    want.sort();
    assert_eq!(names, want, "only compressed files");
    let level = retro::serve::DEFAULT_SET_LEVEL;
    all.par_iter().for_each(|m| {
        let small = Table::open(&dir.join(format!("{m}.rtbc"))).unwrap();
        assert!(small.drops_a_section(), "{m}: one side to move");
        let out = tempfile::tempdir().unwrap();
        let dense = Table::open(&chess_all4().join(format!("{m}.rtb"))).unwrap();
        let c = compressed::compress(&dense, out.path(), Sides::One, Some(level), &Silent).unwrap();
        assert!(
            std::fs::read(c.path).unwrap() == std::fs::read(dir.join(format!("{m}.rtbc"))).unwrap(),
            "{m}: trimmed from both sides, the bytes compressed from one"
        );
    });
    let dense_dtz = super::chess_dtz::dir();
    for m in super::chess_dtz::MATERIALS {
        let name = format!("{m}.dtz");
        let small = Table::open(&dir.join(format!("{name}.rtbc"))).unwrap();
        let dense = Table::open(&dense_dtz.join(format!("{name}.rtb"))).unwrap();
        assert_eq!(small.header(), dense.header(), "{name}");
    }
    let (dense, small) = (Router::new(dense_dtz), Router::new(dir));
    for m in super::chess_dtz::MATERIALS {
        let game = retro::chess::Chess::open(&Material::parse(m).unwrap(), dense_dtz).unwrap();
        let differ: Vec<String> = (0..game.size().div_ceil(499))
            .into_par_iter()
            .filter_map(|k| game.decode(k * 499))
            .map(|pos| retro::chess::fen::to_fen(&pos, 0, 1))
            .filter(|fen| dense.probe(fen).unwrap().json() != small.probe(fen).unwrap().json())
            .take_any(3)
            .collect();
        assert!(differ.is_empty(), "{m}: {differ:?} answer differently");
    }
}

/// Every legal slot of several DTZ tables has the same value compressed as dense, and
/// `decompress` gives the dense file back byte for byte, from a folder of compressed
/// tables only.
#[test]
fn compressed_dtz_tables_hold_every_value_and_the_dense_file() {
    let dir = set_dir();
    let dense_dtz = super::chess_dtz::dir();
    let out = tempfile::tempdir().unwrap();
    for m in ["KQvKR", "KRvKP", "KRvKN"] {
        let name = format!("{m}.dtz");
        let small = retro::GAMES.open(dir, &name).unwrap();
        let dense = retro::GAMES.open(dense_dtz, &name).unwrap();
        // The dropped side found once, for every slot, as `decompress` finds it.
        small.table.complete_all(&Silent, false).unwrap();
        let game =
            retro::chess::dtz::ChessDtz::open(&Material::parse(m).unwrap(), dense_dtz).unwrap();
        let differ: Vec<Index> = (0..game.size())
            .into_par_iter()
            .filter(|&i| game.decode(i).is_some() && small.table.value(i) != dense.table.value(i))
            .take_any(3)
            .collect();
        assert!(differ.is_empty(), "{name}: slots {differ:?}");
        let (path, _) =
            retro::plugin::decompress(&*small.plugin, &small.table, out.path(), &Silent).unwrap();
        assert!(
            std::fs::read(path).unwrap()
                == std::fs::read(dense_dtz.join(format!("{name}.rtb"))).unwrap(),
            "{name} rebuilt"
        );
    }
}

/// A compressed DTZ table with a byte of a block changed: refused on opening with the
/// block named; `info` says which block; `probe` exits 2 naming the file.
#[test]
fn a_damaged_compressed_dtz_table_is_refused_naming_its_block() {
    let dir = tempfile::tempdir().unwrap();
    for f in files(set_dir()) {
        std::fs::copy(set_dir().join(&f), dir.path().join(&f)).unwrap();
    }
    let path = dir.path().join("KQvKR.dtz.rtbc");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    let blocks = Table::open(&set_dir().join("KQvKR.dtz.rtbc"))
        .unwrap()
        .compressed_blocks()
        .unwrap();
    let block = format!("block {}", blocks - 1);
    match Table::open(&path) {
        Err(TableError::Block { detail, .. }) => {
            assert!(
                detail.contains(&block) && detail.contains("checksum mismatch"),
                "{detail}"
            )
        }
        other => panic!("{other:?}"),
    }
    let o = retro(&["info", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    assert!(
        stdout(&o).contains(&format!("(block {}", blocks - 1)),
        "{}",
        stdout(&o)
    );
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
        "--tables",
        dir.path().to_str().unwrap(),
        "--json",
    ]);
    let text = output_text(&o);
    assert!(text.contains("KQvKR.dtz.rtbc"), "{text}");
}

/// A file storing both sides to move, trimmed to one: the bytes `compress` makes of the
/// dense table, whether the file was written at the trial level (its blocks are then taken
/// as weighed, as the set runner's working files are) or at another (weighed again); at the
/// default set's level and at DTM's own default (level 14, its search shortened), whose
/// file gives back the dense table byte for byte.
#[test]
fn a_file_of_both_sides_trims_to_the_bytes_compressed_from_the_dense_table() {
    let dense = Table::open(&chess_all4().join("KQvKR.rtb")).unwrap();
    for level in [Some(retro::serve::DEFAULT_SET_LEVEL), None] {
        let one = super::compressed::kqvkr_sub_tables();
        let want = compressed::compress(&dense, one.path(), Sides::One, level, &Silent).unwrap();
        let want_path = want.path;
        let want = std::fs::read(&want_path).unwrap();
        for both_at in [Some(compressed::TRIAL_LEVEL), level] {
            let both = tempfile::tempdir().unwrap();
            let c =
                compressed::compress(&dense, both.path(), Sides::Both, both_at, &Silent).unwrap();
            let out = tempfile::tempdir().unwrap();
            let trimmed =
                compressed::trim(&Table::open(&c.path).unwrap(), out.path(), level, &Silent)
                    .unwrap()
                    .expect("two sections, one may go");
            assert!(
                std::fs::read(trimmed.path).unwrap() == want,
                "both sides at level {both_at:?}, trimmed at {level:?}"
            );
        }
        if level.is_none() {
            let loaded = retro::GAMES.open_file(&want_path, true).unwrap();
            let out = tempfile::tempdir().unwrap();
            let (path, _) =
                retro::plugin::decompress(&*loaded.plugin, &loaded.table, out.path(), &Silent)
                    .unwrap();
            let original = std::fs::read(chess_all4().join("KQvKR.rtb")).unwrap();
            assert!(std::fs::read(&path).unwrap() == original, "KQvKR rebuilt");
        }
    }
}

/// `generate --compress` killed (SIGKILL) at several moments, then run again: each run
/// leaves every file under a final name intact (it opens, checksums and all), and the
/// last one ends with the files of an uninterrupted run, byte for byte.
#[test]
fn a_compressed_run_killed_at_any_moment_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let level = level();
    let args = [
        "generate",
        "chess",
        "KBvKP",
        "--metric",
        "both",
        "--compress",
        "--level",
        &level,
        "--out",
        d,
    ];
    // Killed as the 3rd, 9th and 15th of the set's 20 tables start, and as a table is
    // compressed or its file trimmed.
    for until in ["[3/", "[9/", "wrote", "now found", "[15/"] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let out = child.stdout.take().unwrap();
        let err = child.stderr.take().unwrap();
        for stream in [
            Box::new(out) as Box<dyn std::io::Read + Send>,
            Box::new(err),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        drop(tx);
        // The lines come until the process ends; it is killed at the first one wanted.
        while let Ok(line) = rx.recv() {
            if line.contains(until) {
                break;
            }
        }
        let _ = child.kill();
        child.wait().unwrap();
        for f in files(dir.path()).iter().filter(|f| !f.starts_with('.')) {
            if let Err(e) = Table::open(&dir.path().join(f)) {
                panic!("killed at '{until}': {f} is damaged: {e}");
            }
        }
    }
    let o = retro(&args);
    assert!(o.status.success(), "{}", output_text(&o));
    let names = files(dir.path());
    assert_eq!(names.len(), 20, "{names:?}");
    for f in names {
        assert!(
            std::fs::read(dir.path().join(&f)).unwrap()
                == std::fs::read(set_dir().join(&f)).unwrap(),
            "{f}"
        );
    }
}

/// The Lichess routes over the compressed set (`/standard`, `/standard/mainline`): every
/// field the dense tables give, DTZ and the category from the clock included, on positions
/// of each of the DTZ tables' materials, clocks 0 and 60, and en passant.
#[tokio::test]
async fn the_lichess_routes_answer_from_the_compressed_set_as_from_the_dense_one() {
    use super::lichess_api::get_from;
    let small = retro::serve::router(retro::serve::AppState::load(set_dir()));
    let dense = retro::serve::router(retro::serve::AppState::load(super::chess_dtz::dir()));
    for fen in [
        "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
        "8/8/8/8/8/2k5/8/KQ5r b - - 60 1",
        "4R3/8/8/8/p7/8/8/k1K5 w - - 0 1",
        "8/8/8/8/8/1k6/8/KR4n1 b - - 0 1",
        "8/8/8/2k5/8/8/1p6/K6R w - - 60 1",
    ] {
        let fen = fen.replace(' ', "_");
        for route in ["standard", "standard/mainline"] {
            let uri = format!("/{route}?fen={fen}");
            let (a, b) = (get_from(&small, &uri).await, get_from(&dense, &uri).await);
            assert_eq!(a.status, 200, "{uri}: {}", a.text());
            assert_eq!(a.json(), b.json(), "{uri}");
            if route == "standard" {
                assert!(
                    a.json()["dtz"].is_i64() || a.json()["category"] == "draw",
                    "{uri}"
                );
            }
        }
    }
}
