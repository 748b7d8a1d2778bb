//! Compressed tables (`.rtbc`), one side to move stored and the other found one ply on:
//! every answer the same as the dense table's, best moves and every move's value
//! included; the dense table rebuilt byte for byte; compressed sub-tables read by
//! `generate`, and a damaged one refused; every part of a damaged file refused; the real
//! binary's `compress`, `decompress`, `info` and `verify`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, Index};
use retro::progress::Silent;
use retro::table::compressed::Sides;
use retro::table::{compressed, Load, Table, TableError};

use super::common::{chess_all4, output_text, retro, stdout};

/// The materials whose every answer is compared (3 pieces), and those whose every value,
/// and every best move through `decompress`, is (4 pieces: KPvKP holds en passant).
const SMALL: [&str; 3] = ["KQvK", "KRvK", "KPvK"];
const LARGE: [&str; 2] = ["KQvKR", "KPvKP"];

/// A folder holding the tables of [`SMALL`] and [`LARGE`] compressed, one side to move
/// each, and every other table they lead into dense (linked from the shared set: a folder
/// may mix the forms, and compressing all 20 would double the test's time).
pub(super) fn compressed_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    super::common::fixture(&DIR, || {
        let dir = super::common::fixture_dir();
        let targets: Vec<Material> = (SMALL.iter().chain(&LARGE))
            .map(|m| Material::parse(m).unwrap())
            .collect();
        let all = retro::chess::plan::closure(&targets);
        all.par_iter().for_each(|m| {
            let dense = chess_all4().join(format!("{m}.rtb"));
            if !targets.contains(m) {
                super::common::link_shared(&dense, dir.path());
                return;
            }
            let table = Table::open(&dense).unwrap();
            let c =
                compressed::compress(&table, dir.path(), Sides::One, Some(LEVEL), &Silent).unwrap();
            assert!(c.dropped.is_some(), "{m}: one side dropped");
        });
        dir
    })
    .path()
}

/// The zstd level of the tests' own compressed files: the fastest. What they check does not
/// depend on it (zstd decodes any level alike), and level 16, the default, compresses KQvKR
/// fifteen times slower (1.5 s of CPU against 0.1 s at level 3).
pub(super) const LEVEL: i32 = 1;

pub(super) fn compressed_file(name: &str) -> PathBuf {
    compressed_dir().join(format!("{name}.{}", compressed::EXTENSION))
}

/// A chess table of `dir` opened with its game, as the CLI and the server open it (a
/// table that drops a side to move gets the game that finds it).
fn open_in(dir: &Path, name: &str) -> retro::registry::Loaded {
    retro::GAMES.open(dir, name).unwrap()
}

/// Every slot of each small material: the same probe answer (value, best move, every
/// move's value, in order) from the compressed table as from the dense one; of the larger
/// ones, the answer of every 97th slot. Their every value and best move is the dense
/// table's by the next test, which rebuilds their dense files byte for byte from the
/// compressed tables (the probe finds values and best moves by the same functions).
#[test]
fn every_answer_is_the_dense_tables() {
    for name in SMALL.iter().chain(&LARGE) {
        let m = Material::parse(name).unwrap();
        let game = Chess::open(&m, chess_all4()).unwrap();
        let dense = open_in(chess_all4(), name);
        let small = open_in(compressed_dir(), name);
        let (dense, small) = (&dense.table, &small.table);
        assert!(small.drops_a_section() && !dense.is_compressed());
        // The dense header kept, each section's checksum that of its values.
        let mut want = dense.header().clone();
        for s in &mut want.sections {
            let records = dense.section_records(s).unwrap();
            let metric = retro::table::Metric::Dtm;
            s.checksum = retro::table::value_sum::of_records(s.records, metric, |first, out| {
                let at = first as usize * 2;
                out.copy_from_slice(&records[at..at + out.len()]);
            })
            .0;
            assert_ne!(s.checksum, retro::table::checksum(&records));
        }
        assert_eq!(small.header(), &want, "{name}: the dense header kept");
        let small_game = Chess::open(&m, compressed_dir()).unwrap();
        let step = if SMALL.contains(name) { 1 } else { 97 };
        let n = game.size();
        let differ: Vec<Index> = (0..n.div_ceil(step))
            .into_par_iter()
            .map(|k| k * step)
            .filter(|&i| {
                let Some(pos) = game.decode(i) else {
                    return false;
                };
                retro::probe::probe(&game, dense, &pos)
                    != retro::probe::probe(&small_game, small, &pos)
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

/// `decompress` gives back the dense files byte for byte (every value, and every best move
/// found again from the values); `generate` reads compressed sub-tables, themselves one
/// side each, and writes the same table as from dense ones.
#[test]
fn the_dense_table_comes_back_and_compressed_sub_tables_serve_generation() {
    let out = tempfile::tempdir().unwrap();
    for name in LARGE {
        let loaded = retro::GAMES
            .open_file(&compressed_file(name), true)
            .unwrap();
        let (path, _) =
            retro::plugin::decompress(&*loaded.plugin, &loaded.table, out.path(), &Silent).unwrap();
        let original = std::fs::read(chess_all4().join(format!("{name}.rtb"))).unwrap();
        assert!(std::fs::read(&path).unwrap() == original, "{name} rebuilt");
    }
    // KQvKR made again over the compressed sub-tables only.
    let fresh = kqvkr_sub_tables();
    let plugin = retro::GAMES.plugin_in("KQvKR", fresh.path()).unwrap();
    let done = retro::generate::generate(&*plugin, fresh.path(), &Silent).unwrap();
    assert!(
        std::fs::read(done.path).unwrap() == std::fs::read(chess_all4().join("KQvKR.rtb")).unwrap(),
        "KQvKR generated anew"
    );
}

/// A folder holding KQvKR's sub-tables, KQvK and KRvK, compressed.
pub(super) fn kqvkr_sub_tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["KQvK", "KRvK"] {
        let file = format!("{sub}.{}", compressed::EXTENSION);
        std::fs::copy(compressed_dir().join(&file), dir.path().join(&file)).unwrap();
    }
    dir
}

/// Assert that the compressed table `path`, in blocks of `slots`, decompresses to the
/// dense table of `name` byte for byte.
fn assert_rebuilds_dense(path: &Path, name: &str, slots: u64) {
    let loaded = retro::GAMES.open_file(path, true).unwrap();
    assert_eq!(loaded.table.compressed_block_slots(), Some(slots), "{name}");
    let out = tempfile::tempdir().unwrap();
    let (rebuilt, _) =
        retro::plugin::decompress(&*loaded.plugin, &loaded.table, out.path(), &Silent).unwrap();
    let dense = std::fs::read(chess_all4().join(format!("{name}.rtb"))).unwrap();
    assert!(std::fs::read(&rebuilt).unwrap() == dense, "{name} rebuilt");
}

/// A table in blocks of one 4,096-slot tile, as tables past 2^32 slots a section (6 pieces)
/// are kept: its file says so, and it gives back the dense table byte for byte.
#[test]
fn a_table_in_blocks_of_one_tile_comes_back_whole() {
    let dir = kqvkr_sub_tables();
    let dense = Table::open(&chess_all4().join("KQvKR.rtb")).unwrap();
    let slots = compressed::SMALL_BLOCK_SLOTS;
    let c =
        compressed::compress_in_blocks(&dense, dir.path(), Sides::One, Some(LEVEL), slots, &Silent)
            .unwrap();
    // 462 king pairs of 64 x 64 slots a section, one side kept.
    assert_eq!(c.blocks, 462);
    assert_rebuilds_dense(&c.path, "KQvKR", 4096);
}

/// A compressed table written again in other blocks keeps its values: in blocks of one
/// tile it gives back the dense table byte for byte, and written again in the blocks it
/// had, it is the file `compress` made, byte for byte (the same symbols, weighed and
/// compressed alike).
#[test]
fn a_compressed_table_written_again_in_other_blocks_keeps_its_values() {
    let dir = kqvkr_sub_tables();
    let original = std::fs::read(compressed_file("KQvKR")).unwrap();
    let path = dir.path().join("KQvKR.rtbc");
    std::fs::write(&path, &original).unwrap();
    let again = |slots: u32| {
        let table = Table::open(&path).unwrap();
        compressed::reblock(&table, dir.path(), slots, Some(LEVEL), &Silent)
            .unwrap()
            .expect("a compressed table")
    };
    let small = again(compressed::SMALL_BLOCK_SLOTS);
    // 462 king pairs of 64 x 64 slots, the side kept.
    assert_eq!((small.blocks, small.path.as_path()), (462, path.as_path()));
    assert_rebuilds_dense(&path, "KQvKR", 4096);
    let back = again(compressed::BLOCK_SLOTS);
    assert!(
        std::fs::read(&back.path).unwrap() == original,
        "the file compress made"
    );
    // A dense table is not one to write again.
    let table = Table::open(&chess_all4().join("KQvKR.rtb")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let none = compressed::reblock(&table, out.path(), 4096, Some(LEVEL), &Silent).unwrap();
    assert!(none.is_none());
}

/// `generate --compress --block-slots` makes every table of its run in blocks of that
/// length, DTM and DTZ alike, with the values the default blocks hold; `retro compress
/// --block-slots` writes such a file again in other blocks.
#[test]
fn generate_makes_its_tables_in_the_blocks_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = retro(&[
        "generate",
        "chess",
        "KRvK",
        "--metric",
        "both",
        "--compress",
        "--block-slots",
        "8192",
        "--out",
        out,
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    let dtz = Table::open(&dir.path().join("KRvK.dtz.rtbc")).unwrap();
    assert_eq!(dtz.compressed_block_slots(), Some(8192));
    let krvk = dir.path().join("KRvK.rtbc");
    assert_rebuilds_dense(&krvk, "KRvK", 8192);
    // `retro compress` writes it again in other blocks, and keeps the sides it stores.
    let file = krvk.to_str().unwrap();
    let o = retro(&["compress", "--block-slots", "4096", "--sides", "one", file]);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
    assert!(output_text(&o).contains("--sides is for dense tables"));
    let o = retro(&["compress", "--block-slots", "4096", file]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert_rebuilds_dense(&krvk, "KRvK", 4096);
}

/// A compressed sub-table whose block is damaged while `generate` reads it (a large file,
/// read at positions or mapped, changed in place): the solve meets it as "illegal" on
/// some thread, and the table made from it is refused, the block named, nothing written.
#[test]
fn a_sub_table_damaged_while_generating_leaves_nothing_written() {
    let dir = kqvkr_sub_tables();
    let m = Material::parse("KQvKR").unwrap();
    let chess = Chess::open_reading(&m, dir.path(), Load::Positioned).unwrap();
    // Flip a byte of KQvK's first block, after it was opened and checked.
    let path = dir.path().join("KQvK.rtbc");
    let bytes = std::fs::read(&path).unwrap();
    let hlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as u64;
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&[bytes[hlen as usize + 10] ^ 0x20], hlen + 10)
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let err = retro::generate::generate(&chess, out.path(), &Silent)
        .expect_err("no table from a damaged sub-table");
    let text = err.to_string();
    assert!(
        text.contains("KQvK.rtbc") && text.contains("block 0"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        0,
        "nothing written"
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
        ("the sections stored", 24),
        ("the dense header", 28 + dlen / 2),
        ("the block index", 28 + dlen + 8 + 13 * 3 + 5),
        ("a block's form", 28 + dlen + 8 + 13 * 3 + 12),
        ("a noted slot", hlen - 8 - 5),
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
                text.contains(&format!("white (block {}", blocks - 1)),
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

/// A folder holding KQvKR's compressed sub-tables and, as `KQvKR.rtbc`, the header `head`
/// (its checksum field left off) sealed with its checksum, then `blocks`.
fn kqvkr_resealed(mut head: Vec<u8>, blocks: &[u8]) -> tempfile::TempDir {
    let sum = retro::table::checksum(&head);
    head.extend_from_slice(&sum.to_le_bytes());
    head.extend_from_slice(blocks);
    let dir = tempfile::tempdir().unwrap();
    for f in ["KQvK.rtbc", "KRvK.rtbc"] {
        std::fs::copy(compressed_dir().join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("KQvKR.rtbc"), head).unwrap();
    dir
}

/// A version 3 file (DTM, the dropped section's noted slots only, as earlier builds wrote
/// it) is read as it is: every answer the same as from the current version's file.
#[test]
fn a_version_3_file_is_still_read() {
    let v4 = std::fs::read(compressed_file("KQvKR")).unwrap();
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let (hlen, dlen) = (u32_at(&v4, 12) as usize, u32_at(&v4, 20) as usize);
    let mask = u32_at(&v4, 24);
    let n = u64::from_le_bytes(v4[28 + dlen..36 + dlen].try_into().unwrap()) as usize;
    // The noted slots of each of the two sections: keep the dropped one's list.
    let mut at = 36 + dlen + 13 * n;
    let mut lists = Vec::new();
    for _ in 0..2 {
        let m = u32_at(&v4, at) as usize;
        lists.push(v4[at..at + 4 + 8 * m].to_vec());
        at += 4 + 8 * m;
    }
    let dropped = if mask & 1 == 0 { 0 } else { 1 };
    let mut head = v4[..36 + dlen + 13 * n].to_vec();
    head.extend_from_slice(&lists[dropped]);
    let len = head.len() as u32 + 8;
    head[8..12].copy_from_slice(&3u32.to_le_bytes());
    head[12..16].copy_from_slice(&len.to_le_bytes());
    let dir = kqvkr_resealed(head, &v4[hlen..]);
    let old = open_in(dir.path(), "KQvKR");
    let new = open_in(compressed_dir(), "KQvKR");
    assert_eq!(old.table.noted_slots(), new.table.noted_slots());
    // Its stored section notes nothing: the statistics page finds that section's longest
    // positions by reading its blocks one by one, and shows what the newer file notes.
    let kept = old.table.sections_stored().iter().position(|&s| s).unwrap();
    let sections = &old.table.header().sections;
    assert!(old.table.section_noted(&sections[kept]).is_none());
    assert!(new.table.section_noted(&sections[kept]).is_some());
    let stats = |dir: &Path| {
        let state = retro::serve::AppState::load(dir);
        let now = state.now();
        let t = retro::serve::stats::table_stats("KQvKR", now.tables.table("KQvKR").unwrap());
        let mut j = serde_json::to_value(t).unwrap();
        j["bytes"] = serde_json::Value::Null;
        j
    };
    let (a, b) = (stats(dir.path()), stats(compressed_dir()));
    assert_eq!(a, b);
    assert_eq!(
        a["sections"][kept]["longest_positions"]["positions"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
    let game = Chess::open(&Material::parse("KQvKR").unwrap(), chess_all4()).unwrap();
    let differ = (0..game.size().div_ceil(13))
        .into_par_iter()
        .map(|k| k * 13)
        .filter(|&i| game.decode(i).is_some() && old.table.value(i) != new.table.value(i))
        .count();
    assert_eq!(differ, 0);
}

/// A section read a part at a time, as the server's statistics page reads one, is the
/// section read whole, dense or compressed, and the reader can stop after any part.
#[test]
fn a_section_read_in_parts_is_the_section() {
    use std::ops::ControlFlow::{Break, Continue};
    for path in [chess_all4().join("KQvKR.rtb"), compressed_file("KQvKR")] {
        let t = Table::open(&path).unwrap();
        let stored = t.sections_stored();
        for s in (t.header().sections.iter())
            .zip(stored)
            .filter_map(|(s, k)| k.then_some(s))
        {
            let whole = t.section_records(s).unwrap();
            let (mut parts, mut count) = (Vec::new(), 0);
            t.scan_section_records(s, |at, r| {
                assert_eq!(2 * at as usize, parts.len(), "{}", path.display());
                parts.extend_from_slice(r);
                count += 1;
                Continue(())
            })
            .unwrap();
            assert!(parts == *whole, "{} {}", path.display(), s.name);
            // 1,892,352 slots a section: two parts of a dense file, eight blocks.
            assert!(count >= 2, "{} parts", count);
            let mut read = 0;
            t.scan_section_records(s, |_, _| {
                read += 1;
                Break(())
            })
            .unwrap();
            assert_eq!(read, 1);
        }
    }
}

/// A file's version says what its sections' checksums hash: a version 4 file keeps the
/// dense records' (best moves included), version 5 the values'. `decompress` rebuilds
/// KQvKR byte for byte from the version 4 file made of this one, and refuses the version 5
/// file merely relabelled 4, naming the section: a DTM table's values and records hash
/// apart, and nothing is written.
#[test]
fn a_version_4_file_is_checked_against_its_dense_records() {
    let v5 = std::fs::read(compressed_file("KQvKR")).unwrap();
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let (hlen, dlen) = (u32_at(&v5, 12) as usize, u32_at(&v5, 20) as usize);
    let dense = Table::open(&chess_all4().join("KQvKR.rtb")).unwrap();
    let mut header = retro::table::Header::decode(&v5[28..28 + dlen]).unwrap();
    assert_ne!(
        header.sections[0].checksum,
        dense.header().sections[0].checksum
    );
    // `version` over the same blocks, the dense header's checksums those of `sums`.
    let mut file = |version: u32, sums: &[u64]| {
        for (s, &sum) in header.sections.iter_mut().zip(sums) {
            s.checksum = sum;
        }
        let dense_head = header.encode();
        assert_eq!(dense_head.len(), dlen);
        let mut head = v5[..hlen - 8].to_vec();
        head[8..12].copy_from_slice(&version.to_le_bytes());
        head[28..28 + dlen].copy_from_slice(&dense_head);
        kqvkr_resealed(head, &v5[hlen..])
    };
    let rebuild = |dir: &Path| {
        let loaded = retro::GAMES
            .open_file(&dir.join("KQvKR.rtbc"), true)
            .unwrap();
        let out = dir.join("out");
        retro::plugin::decompress(&*loaded.plugin, &loaded.table, &out, &Silent)
            .map(|(path, _)| std::fs::read(path).unwrap())
    };
    let records: Vec<u64> = dense.header().sections.iter().map(|s| s.checksum).collect();
    let v4 = file(4, &records);
    let original = std::fs::read(chess_all4().join("KQvKR.rtb")).unwrap();
    assert!(
        rebuild(v4.path()).unwrap() == original,
        "KQvKR from version 4"
    );
    let values: Vec<u64> = (retro::table::Header::decode(&v5[28..28 + dlen]).unwrap())
        .sections
        .iter()
        .map(|s| s.checksum)
        .collect();
    let relabelled = file(4, &values);
    let err = rebuild(relabelled.path()).unwrap_err();
    assert!(
        matches!(&err, TableError::Checksum { part, .. } if part.contains("as rebuilt")),
        "{err}"
    );
    assert!(!relabelled.path().join("out").join("KQvKR.rtb").exists());
    // The version 5 file itself rebuilds the same bytes.
    assert!(rebuild(file(5, &values).path()).unwrap() == original);
}

/// Files of compressed format versions 1 (blocks without a form) and 2 (both sides
/// always) are refused, naming the command that makes them again, by the library and the
/// command line.
#[test]
fn an_older_compressed_format_is_refused_with_the_command_to_remake_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KQvKR.rtbc");
    for old in [1u32, 2] {
        let mut bytes = std::fs::read(compressed_file("KQvKR")).unwrap();
        bytes[8..12].copy_from_slice(&old.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        let err = Table::open(&path).unwrap_err();
        assert!(
            matches!(
                err,
                TableError::OldCompressed {
                    found,
                    expected: compressed::VERSION,
                    ..
                } if found == old
            ),
            "{err}"
        );
        // The error names the dense table to make it again from; the CLI names the command.
        let dense = dir.path().join("KQvKR.rtb");
        assert!(
            matches!(&err, TableError::OldCompressed { dense: d, .. } if *d == dense),
            "{err:?}"
        );
        let remake = format!("retro compress {}", dense.display());
        let o = retro(&["info", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(output_text(&o).contains(&remake), "{}", output_text(&o));
    }
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
    let small = dir.path().join("KQvKR.rtbc");
    let len = |p: &Path| std::fs::metadata(p).unwrap().len();
    // Both sides first, then (over it) the default for chess: one.
    let o = retro(&[
        "compress",
        small.with_extension("rtb").to_str().unwrap(),
        "--sides",
        "both",
        "--level",
        "1",
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(!stdout(&o).contains("one ply on"), "{}", stdout(&o));
    let both = len(&small);
    let o = retro(&["compress", "--all", d, "--level", "1"]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(stdout(&o).contains("3 tables:"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("KQvKR.rtbc (")
            && stdout(&o).contains("section 'black' found one ply on"),
        "{}",
        stdout(&o)
    );
    let (dense_len, small_len) = (len(&small.with_extension("rtb")), len(&small));
    assert!(small_len * 12 < dense_len, "{small_len} vs {dense_len}");
    assert!(
        small_len * 3 < both * 2,
        "one side {small_len}, both {both}"
    );
    let o = retro(&["info", small.to_str().unwrap()]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(stdout(&o).contains("retro compressed table version 5"));
    assert!(
        stdout(&o).contains("dropped:   section 'black'"),
        "{}",
        stdout(&o)
    );
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
    // Its statistics page: the same figures and longest positions, and intact blocks
    // (the checksums differ: the compressed file's are of the values).
    let stats = |s: &retro::serve::AppState| {
        let t = retro::serve::stats::table_stats("KQvKR", s.now().tables.table("KQvKR").unwrap());
        let mut j = serde_json::to_value(t).unwrap();
        j["bytes"] = serde_json::Value::Null;
        for k in 0..2 {
            j["sections"][k]["checksum"] = serde_json::Value::Null;
        }
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
            let now = s.now();
            let t = now.tables.table("KQvKR").unwrap();
            t.plugin.probe(&t.table, fen).unwrap().json()
        };
        assert_eq!(answer(&small), answer(&dense), "{fen}");
    }
}
