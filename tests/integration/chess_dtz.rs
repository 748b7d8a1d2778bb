//! Distance to zeroing (DTZ50): the published Syzygy facts of KQvKR and KRvKP, exact plies
//! where Syzygy's files round, the tables' bytes whatever the thread count, `retro verify`
//! on DTZ tables, `retro probe chess` with DTZ beside DTM, and the Lichess API's `dtz`,
//! `precise_dtz`, categories and DTZ-optimal mainline from the DTZ tables.
//!
//! Tables: the DTM and DTZ tables of KQvKR and KRvKP and everything they lead to, made once
//! into a folder (the DTM tables copied from the shared set of 4-piece tables).

use retro::solve::Solve;
use std::path::Path;
use std::sync::OnceLock;

use axum::Router;
use serde_json::Value as Json;

use retro::game::Value;
use retro::present::DistanceUnit;
use retro::progress::Silent;

use super::common::{chess_all4, output_text, retro, stdout};
use super::lichess_api::get_from;

/// Every material KQvKR and KRvKP lead to, each before the tables that read it.
pub(super) const MATERIALS: [&str; 10] = [
    "KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KQvKR", "KRvKB", "KRvKN", "KRvKR", "KRvKP",
];

pub(super) fn dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    super::common::fixture(&DIR, || {
        let dir = super::common::fixture_dir();
        for m in MATERIALS {
            let dtm = format!("{m}.rtb");
            std::fs::copy(chess_all4().join(&dtm), dir.path().join(&dtm)).unwrap();
            let p = retro::GAMES
                .plugin_in(&format!("{m}.dtz"), dir.path())
                .unwrap();
            retro::generate::generate(&*p, dir.path(), &Silent).unwrap();
        }
        dir
    })
    .path()
}

fn app() -> &'static Router {
    static APP: OnceLock<Router> = OnceLock::new();
    APP.get_or_init(|| retro::serve::router(retro::serve::AppState::load(dir())))
}

/// The DTZ of a FEN from its DTZ table, through the library.
fn dtz(fen: &str) -> Value {
    let pos = retro::chess::fen::parse(fen).unwrap();
    let (m, _) = pos.material().canonical();
    let loaded = retro::GAMES.open(dir(), &format!("{m}.dtz")).unwrap();
    let j: Json =
        serde_json::from_str(&loaded.plugin.probe(&loaded.table, fen).unwrap().json()).unwrap();
    let d = j["dtz"].as_i64().unwrap();
    match d {
        0 => Value::Draw,
        -1 if j["category"] == "loss" && j["moves"].as_array().unwrap().is_empty() => {
            Value::Loss(0)
        }
        d if d > 0 => Value::Win(d as u16),
        d => Value::Loss((-d) as u16),
    }
}

/// Syzygy's statistics (`rtbgen -s`): the longest DTZ50 of each side's wins, with the
/// position, and retro's table has no longer one.
#[test]
fn the_longest_dtz50_of_kqvkr_and_krvkp_are_syzygys() {
    for (material, fen, want) in [
        ("KQvKR", "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1", Value::Loss(62)),
        ("KQvKR", "8/8/8/8/8/1r6/6Q1/k1K5 b - - 0 1", Value::Win(5)),
        ("KRvKP", "7K/8/p7/8/k7/7R/8/8 w - - 0 1", Value::Win(25)),
        (
            "KRvKP",
            "8/8/8/8/5R2/3k4/2p2K2/8 w - - 0 1",
            Value::Loss(20),
        ),
    ] {
        assert_eq!(dtz(fen), want, "{fen}");
        // The longest of the table, from its statistics, is that one.
        let t = retro::table::Table::open(&dir().join(format!("{material}.dtz.rtb"))).unwrap();
        let longest = retro::summary::stats(t.header(), DistanceUnit::Plies)
            .iter()
            .filter_map(|s| s.longest.map(|l| l.0))
            .max();
        if material == "KQvKR" {
            assert_eq!(longest, Some(62));
        } else {
            assert_eq!(longest, Some(25));
        }
    }
}

/// Syzygy's per-ply counts of KQvKR, white to move (the same index of 462 king pairs), and
/// KRvKP's totals for each side to move.
#[test]
fn dtz_statistics_are_syzygys() {
    let t = retro::table::Table::open(&dir().join("KQvKR.dtz.rtb")).unwrap();
    let st = retro::summary::stats(t.header(), DistanceUnit::Plies);
    let white_wins: Vec<(u16, u64)> = st[0]
        .by_distance
        .iter()
        .filter(|d| d.1 > 0)
        .map(|d| (d.0, d.1))
        .take(6)
        .collect();
    assert_eq!(
        white_wins,
        [
            (1, 445_570),
            (3, 182_753),
            (5, 43_080),
            (7, 26_857),
            (9, 22_743),
            (11, 15_728)
        ]
    );
    let t = retro::table::Table::open(&dir().join("KRvKP.dtz.rtb")).unwrap();
    let st = retro::summary::stats(t.header(), DistanceUnit::Plies);
    let totals: Vec<(u64, u64, u64)> = st.iter().map(|s| (s.wins, s.draws, s.losses)).collect();
    assert_eq!(
        totals,
        [(3_703_102, 340_191, 6_727), (816_810, 871_949, 3_292_745)]
    );
    // No 4-piece material has a cursed win; these two have none either.
    for s in &st {
        assert!(s.by_distance.iter().all(|d| d.0 <= 100), "{s:?}");
    }
}

/// Exact plies where Syzygy's files store moves and answer one ply less (python-chess gives
/// 1, -4 for the last two), checkmate as Syzygy counts it, and a draw.
#[test]
fn dtz_is_exact_in_plies() {
    for (fen, want) in [
        // Re2 leaves black only a3 (a zeroing move into a lost position): 2 plies.
        ("4R3/8/8/8/p7/8/8/k1K5 w - - 0 1", Value::Win(2)),
        // Black's pawn must move on the fifth ply.
        ("k3K3/6R1/2p5/8/8/8/8/8 b - - 0 1", Value::Loss(5)),
        ("8/8/8/1kr5/8/2K5/3Q4/8 w - - 0 1", Value::Win(45)),
        ("8/8/8/8/1K6/8/1p3k2/4R3 b - - 0 1", Value::Win(1)),
        ("8/k1K5/8/8/8/Q7/8/4r3 b - - 0 1", Value::Loss(0)),
        ("8/8/8/7K/8/R7/5p2/3k4 w - - 0 1", Value::Draw),
    ] {
        assert_eq!(dtz(fen), want, "{fen}");
    }
}

/// `generate --metric dtz` with one thread and with two writes the same bytes; `verify`
/// passes a DTZ table and names the position of a changed record; `--compress` leaves the
/// DTZ table compressed only, giving the dense bytes back; DTZ tables are chess's alone.
#[test]
fn dtz_tables_are_the_same_whatever_the_thread_count_and_verify() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (d, threads) in [(&a, "1"), (&b, "2")] {
        let o = retro(&[
            "generate",
            "chess",
            "--all",
            "3",
            "--metric",
            "both",
            "--threads",
            threads,
            "--out",
            d.path().to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", output_text(&o));
    }
    for m in ["KQvK", "KRvK", "KPvK", "KBvK", "KNvK"] {
        for name in [format!("{m}.rtb"), format!("{m}.dtz.rtb")] {
            let x = std::fs::read(a.path().join(&name)).unwrap();
            assert_eq!(x, std::fs::read(b.path().join(&name)).unwrap(), "{name}");
        }
    }
    let file = a.path().join("KPvK.dtz.rtb");
    let o = retro(&["verify", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", output_text(&o));
    // A legal slot's record changed to another DTZ: the checksum and the recomputation
    // from the moves both tell.
    let mut bytes = std::fs::read(&file).unwrap();
    let t = retro::table::Table::open(&file).unwrap();
    let s = &t.header().sections[0];
    let at = (s.offset as usize..s.offset as usize + s.byte_len() as usize)
        .step_by(2)
        .find(|&i| u16::from_le_bytes([bytes[i], bytes[i + 1]]) == 2 * 19)
        .expect("a win in 19 plies");
    bytes[at..at + 2].copy_from_slice(&(2u16 * 17).to_le_bytes());
    let bad = b.path().join("KPvK.dtz.rtb");
    std::fs::write(&bad, &bytes).unwrap();
    let o = retro(&["verify", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let text = output_text(&o);
    assert!(
        text.contains("checksum") && text.contains("Win(17)"),
        "{text}"
    );
    // Compressed: only the compressed file is left, and it gives the dense bytes back.
    let c = tempfile::tempdir().unwrap();
    let o = retro(&[
        "generate",
        "chess",
        "KPvK",
        "--metric",
        "dtz",
        "--compress",
        "--out",
        c.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    // Its progress names no dense file, since none is written.
    let text = output_text(&o);
    assert!(
        text.contains("] KPvK.dtz: ") && text.contains(" of memory, written compressed ("),
        "{text}"
    );
    assert!(!text.contains(" file ("), "{text}");
    let mut files: Vec<String> = std::fs::read_dir(c.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "KBvK.dtz.rtbc",
            "KNvK.dtz.rtbc",
            "KPvK.dtz.rtbc",
            "KQvK.dtz.rtbc",
            "KRvK.dtz.rtbc"
        ]
    );
    let back = tempfile::tempdir().unwrap();
    let small = c.path().join("KPvK.dtz.rtbc");
    let o = retro(&[
        "decompress",
        small.to_str().unwrap(),
        "--out",
        back.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    assert!(
        std::fs::read(back.path().join("KPvK.dtz.rtb")).unwrap() == std::fs::read(&file).unwrap()
    );
    // Not for other games.
    let o = retro(&[
        "generate",
        "kbnk",
        "--metric",
        "dtz",
        "--out",
        a.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        output_text(&o).contains("--metric is for chess"),
        "{}",
        output_text(&o)
    );
}

/// `retro probe chess` shows DTZ beside DTM when the DTZ table is there, `null` when not.
#[test]
fn probe_shows_dtz_beside_dtm() {
    let fen = "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1";
    let d = dir().to_str().unwrap();
    let o = retro(&["probe", "chess", fen, "--tables", d, "--json"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let j: Json = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (j["dtm"].as_i64(), j["dtz"].as_i64()),
        (Some(-70), Some(-62))
    );
    assert_eq!(j["dtz_category"], "loss");
    // Each move: the DTZ of the position reached, beside its DTM.
    let rc5 = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "b5c5")
        .unwrap();
    assert_eq!(
        (rc5["dtm"].as_i64(), rc5["dtz"].as_i64()),
        (Some(69), Some(61))
    );
    let o = retro(&["probe", "chess", fen, "--tables", d]);
    assert!(
        stdout(&o).contains("distance to zeroing: -62 plies (loss)"),
        "{}",
        stdout(&o)
    );
    // Without the DTZ table: the DTM answer, with `dtz: null`.
    let o = retro(&[
        "probe",
        "chess",
        fen,
        "--tables",
        chess_all4().to_str().unwrap(),
        "--json",
    ]);
    let j: Json = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (j["dtm"].as_i64(), j["dtz"].clone()),
        (Some(-70), Json::Null)
    );
}

async fn standard(fen: &str) -> Json {
    let r = get_from(app(), &format!("/standard?fen={}", fen.replace(' ', "_"))).await;
    assert_eq!(r.status, 200, "{fen}: {}", r.text());
    r.json()
}

/// `/standard` from the DTZ tables: `dtz` = `precise_dtz`, exact, on the position and every
/// move; the category follows the clock; no `maybe-*` where DTZ tables answer.
#[tokio::test]
async fn standard_answers_exact_dtz_from_the_dtz_tables() {
    let a = standard("4R3/8/8/8/p7/8/8/k1K5 w - - 0 1").await;
    assert_eq!(
        (a["dtz"].as_i64(), a["precise_dtz"].as_i64()),
        (Some(2), Some(2))
    );
    assert_eq!(a["category"], "win");
    let re2 = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "e8e2")
        .unwrap();
    assert_eq!(
        re2["dtz"].as_i64(),
        Some(-1),
        "black must play a3: a zeroing loss"
    );
    // DTM 25 plies would be in time whatever the clock; DTZ decides at 80.
    let fen = "8/8/8/1kr5/8/2K5/3Q4/8 w - - 0 1";
    let a = standard(fen).await;
    assert_eq!(a["dtz"].as_i64(), Some(45));
    for (clock, category) in [(55, "win"), (56, "cursed-win")] {
        let a = standard(&fen.replace(" 0 1", &format!(" {clock} 60"))).await;
        let dtm = a["dtm"].as_i64().unwrap();
        assert!(dtm + clock > 100, "DTM alone would not settle it ({dtm})");
        assert_eq!(a["category"], category, "clock {clock}");
    }
    // Every move of a KRvKP position with a pawn about to promote: no `maybe`.
    let a = standard("8/8/8/8/5R2/3k4/2p2K2/8 w - - 0 1").await;
    assert_eq!(a["dtz"].as_i64(), Some(-20));
    for m in a["moves"].as_array().unwrap() {
        assert!(m["dtz"].is_i64() && m["precise_dtz"] == m["dtz"], "{m}");
        assert!(!m["category"].as_str().unwrap().starts_with("maybe"), "{m}");
    }
}

/// `/standard/mainline` follows Lichess's rule from the DTZ tables: each step's DTZ is the
/// last one's less a ply until a zeroing move, and the line runs on to mate.
#[tokio::test]
async fn mainline_is_dtz_optimal() {
    let fen = "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1";
    let r = get_from(
        app(),
        &format!("/standard/mainline?fen={}", fen.replace(' ', "_")),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let j = r.json();
    assert_eq!(j["dtz"].as_i64(), Some(-62));
    assert_eq!(j["winner"], "w");
    let line = j["mainline"].as_array().unwrap();
    // Black delays, white hurries: 62 plies to the capture of the rook (or a mate).
    let dtz: Vec<i64> = line.iter().map(|s| s["dtz"].as_i64().unwrap()).collect();
    for k in 0..61 {
        assert_eq!(dtz[k].abs(), 61 - k as i64, "step {k}: {dtz:?}");
        assert_eq!(line[k]["precise_dtz"], line[k]["dtz"]);
    }
    assert!(line[61]["uci"].as_str().unwrap().len() == 4);
    assert!(line.len() > 62, "the line goes on in KQvK to mate");
}

/// Where the only zeroing move on the way to a win is the mate, DTZ is DTM: the DTZ table
/// is made from the bitboard DTM solver's values, and its bytes are the restarting
/// solver's.
#[test]
fn dtz_is_dtm_where_mate_is_the_only_winning_zeroing_move() {
    use retro::chess::dtz::{mate_is_the_only_zeroing_win, ChessDtz};
    use retro::chess::material::Material;
    use retro::game::{Game, Records, SolveOptions};
    let only = |m: &str| mate_is_the_only_zeroing_win(&Material::parse(m).unwrap());
    assert!(only("KQvK") && only("KBNvK") && only("KNNvK"));
    assert!(!only("KQRvK") && !only("KPvK") && !only("KBvKN") && !only("KBNvKN"));
    let opts = SolveOptions { progress: &Silent };
    let bytes = |r: &dyn Records| {
        let mut out = vec![0u8; 2 * r.slots() as usize];
        r.fill(0, &mut out);
        out
    };
    for m in ["KQvK", "KBNvK"] {
        let g = ChessDtz::open(&Material::parse(m).unwrap(), dir()).unwrap();
        let fast = g.solve_records(&opts).unwrap();
        let generic = retro::solve::restart::solve_values(&g, None, &opts).unwrap();
        assert!(bytes(&*fast) == bytes(&generic), "{m}");
        // And the values are the DTM table's.
        let dtm = retro::GAMES.open(chess_all4(), m).unwrap();
        assert!(
            (0..g.size()).all(|i| fast.value(i) == dtm.table.value(i)),
            "{m}"
        );
    }
}

/// The other tables of pieces against a bare king (a pawn, or a major piece beside
/// another) are made by the bitboard solver too, counting DTZ: its bytes are the
/// restarting solver's, in full, on a table with two major pieces (captures of either
/// piece) and one with a pawn (promotions into every sub-table, pawn moves into higher
/// tiers). The DTZ tables they read are made first, into a folder of their own, by the
/// bitboard solver. (KQPvK, a piece and a pawn, took 7 to 11 s of the restarting solver,
/// and KPPvK reads every table of two pieces against a bare king: too much for the test
/// command's budget; all 13 such tables were checked with `cmp` against the restarting
/// solver's.)
#[test]
fn bare_king_dtz_is_the_restarting_solvers() {
    use retro::chess::dtz::{mate_is_the_only_zeroing_win, ChessDtz};
    use retro::chess::material::Material;
    let names = ["KQRvK", "KPvK"];
    let materials: Vec<Material> = names.map(|m| Material::parse(m).unwrap()).to_vec();
    let dir = tempfile::tempdir().unwrap();
    for m in retro::chess::plan::closure(&materials) {
        let p = retro::GAMES
            .plugin_in(&format!("{m}.dtz"), dir.path())
            .unwrap();
        retro::generate::generate(&*p, dir.path(), &Silent).unwrap();
    }
    for (m, material) in names.iter().zip(&materials) {
        assert!(
            retro::chess::bareking::applies(material) && !mate_is_the_only_zeroing_win(material)
        );
        let g = ChessDtz::open(material, dir.path()).unwrap();
        assert_restarting_solvers_bytes(m, &g);
    }
}

/// `g`'s DTZ records as it makes them are the restarting solver's, on positions, in full
/// (tier by tier with pawns).
fn assert_restarting_solvers_bytes(m: &str, g: &retro::chess::dtz::ChessDtz) {
    use retro::chess::dtz::pawn_advance;
    use retro::chess::Position;
    use retro::game::{Records, SolveOptions};
    let opts = SolveOptions { progress: &Silent };
    let bytes = |r: &dyn Records| {
        let mut out = vec![0u8; 2 * r.slots() as usize];
        r.fill(0, &mut out);
        out
    };
    let fast = bytes(&*g.solve_records(&opts).unwrap());
    let tier: &(dyn Fn(&Position) -> u32 + Sync) = &pawn_advance;
    let tier = g.material().has_pawns().then_some(tier);
    let generic = bytes(&retro::solve::restart::solve_values(g, tier, &opts).unwrap());
    assert_eq!(fast.len(), generic.len(), "{m}");
    let first = fast.iter().zip(&generic).position(|(a, b)| a != b);
    assert_eq!(first, None, "{m}: first differing byte");
}

/// The DTZ tables of materials with pieces on both sides are made by the one-byte solver on
/// the chess passes (by tiers with pawns): their bytes are the restarting solver's on
/// positions, in full.
#[test]
fn dtz_of_pieces_on_both_sides_is_the_restarting_solvers() {
    use retro::chess::dtz::ChessDtz;
    use retro::chess::material::Material;
    for m in ["KRvKN", "KRvKP"] {
        let g = ChessDtz::open(&Material::parse(m).unwrap(), dir()).unwrap();
        assert_restarting_solvers_bytes(m, &g);
    }
}

/// The DTZ passes' groups start, un-move and check as their slots do (KRvKP: by tiers, a
/// pawn's move read from the finished table, its un-moves and moves staying in the tier).
#[test]
fn dtz_group_passes_move_as_their_slots() {
    use retro::chess::dtz::ChessDtz;
    use retro::chess::material::Material;
    use retro::game::Game;
    use retro::solve::one_byte::{check_group_passes, Own, Passes};
    for m in ["KQvKR", "KRvKP"] {
        let g = ChessDtz::open(&Material::parse(m).unwrap(), dir()).unwrap();
        let t = retro::table::Table::open(&dir().join(format!("{m}.dtz.rtb"))).unwrap();
        let own: Own = &|q| t.value(q);
        let passes = g.passes();
        assert_eq!(passes.tiers(), if m == "KRvKP" { 6 } else { 1 }, "{m}");
        let len = passes.group() as u64;
        let legal = |i| g.decode(i).is_some();
        let mut checked = 0;
        for first in (0..g.size() / len).step_by(53).map(|k| k * len) {
            let mask = (0..len)
                .filter(|&b| legal(first + b))
                .fold(0, |m, b| m | 1 << b);
            if mask != 0 {
                let accept = |i: u64| i % 5 != 0;
                check_group_passes(&passes, own, first, mask, legal, accept)
                    .unwrap_or_else(|e| panic!("{m} groups: {e}"));
                checked += 1;
            }
        }
        assert!(checked > 100, "{m}: {checked} groups");
    }
}
