//! `retro serve` started with no folder named, where none is yet, makes `./tables` and its
//! default tables (every chess table of up to 4 pieces, DTM and DTZ, compressed; KBNK; the
//! k-in-a-row boards), one line a table, then serves them; started again on that folder, it
//! makes nothing and answers at once. The folder is the shared fixture [`default_tables`],
//! made once per run. A folder named with `--tables` that does not exist is an error.

use serde_json::Value as Json;

use retro::chess::material::Material;
use retro::table::Table;

use super::common::{default_tables, http_get, output_text, retro, RetroServe};

/// The chess tables of the default set, each material's DTM table then its DTZ table.
fn chess_names() -> Vec<String> {
    Material::all(4)
        .iter()
        .flat_map(|m| [m.to_string(), format!("{m}.dtz")])
        .collect()
}

/// The names of the tables the log says were made, in the order it says so.
fn made(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.strip_prefix("retro serve: ["))
        .filter_map(|l| l.split_once("] ")?.1.split_once(" made (").map(|p| p.0))
        .map(String::from)
        .collect()
}

#[test]
fn a_new_folder_gets_every_table_of_up_to_4_pieces_compressed_with_kbnk_and_boards() {
    let d = default_tables();
    let mut files: Vec<String> = std::fs::read_dir(&d.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut want: Vec<String> = chess_names()
        .iter()
        .map(|n| format!("{n}.rtbc"))
        .chain(["kbnk", "mnk-3x3-3", "mnk-3x4-3", "mnk-4x4-3"].map(|n| format!("{n}.rtb")))
        .collect();
    want.sort();
    assert_eq!(files, want, "{}", d.log);
    assert_eq!(files.len(), 74);
    // Each chess file whole (its checksums), storing one side to move: its final form.
    for n in chess_names() {
        let t = Table::open(&d.dir.join(format!("{n}.rtbc"))).unwrap();
        assert!(t.drops_a_section(), "{n}");
    }
    // One line a table made, each table once, every chess table after those it reads.
    let names = made(&d.log);
    assert_eq!(names.len(), 74, "{}", d.log);
    assert_eq!(names[0], "kbnk");
    assert_eq!(names[71..], ["mnk-3x3-3", "mnk-3x4-3", "mnk-4x4-3"]);
    let chess = &names[1..71];
    let mut sorted = chess.to_vec();
    sorted.sort();
    let mut all = chess_names();
    all.sort();
    assert_eq!(sorted, all);
    for (i, n) in chess.iter().enumerate() {
        let (material, dtz) = match n.strip_suffix(".dtz") {
            Some(m) => (m, ".dtz"),
            None => (n.as_str(), ""),
        };
        for child in Material::parse(material).unwrap().children() {
            let child = format!("{}{dtz}", child.canonical().0);
            assert!(chess[..i].contains(&child), "{n} before {child}");
        }
    }
    assert!(
        d.log
            .contains("made the folder tables for the default tables"),
        "{}",
        d.log
    );
}

/// Started again on the folder it filled, `retro serve` makes nothing and rewrites
/// nothing; `/standard` answers 4-piece positions with DTM and DTZ from the compressed
/// tables: KQvKR's longest DTZ50 (Syzygy's statistics: 62 plies, black to move), and its
/// longest mate (mate in 35 moves, 69 plies: the published maximum).
#[test]
fn started_on_its_default_tables_serve_makes_none_and_answers_4_pieces() {
    let d = default_tables();
    let stamps = || -> Vec<(String, std::time::SystemTime)> {
        let mut v: Vec<_> = std::fs::read_dir(&d.dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().into_string().unwrap();
                (name, e.metadata().unwrap().modified().unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let before = stamps();
    let server = RetroServe::start_making_defaults(&d.dir);
    let get = |path: &str| -> Json {
        let (status, body) = http_get(&server.addr, path);
        assert_eq!(status, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    };
    let a = get("/standard?fen=8/8/2k5/1r6/8/8/8/2KQ4_b_-_-_0_1");
    assert_eq!(a["category"], "loss", "{a}");
    assert_eq!(a["dtz"].as_i64(), Some(-62), "{a}");
    // Mate takes at least as long as the next capture or mate.
    let dtm = a["dtm"]
        .as_i64()
        .expect("DTM from the compressed DTM table");
    assert!(dtm <= -62, "{a}");
    // KQvKR's longest win, from the table's own statistics.
    let stats = get("/api/tables/KQvKR/stats.json");
    let longest = stats["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["longest_positions"])
        .find(|l| l["category"] == "win")
        .expect("a side to move that wins")
        .clone();
    assert_eq!(longest["plies"], 69, "{longest}");
    let fen = longest["positions"][0].as_str().unwrap().replace(' ', "_");
    let a = get(&format!("/standard?fen={fen}"));
    assert_eq!(
        (&a["category"], a["dtm"].as_i64()),
        (&"win".into(), Some(69))
    );
    let dtz = a["dtz"]
        .as_i64()
        .expect("DTZ from the compressed DTZ table");
    assert!((1..=69).contains(&dtz), "{a}");
    let log = server.stop();
    assert!(!log.contains("making"), "{log}");
    assert_eq!(stamps(), before, "no file made or rewritten");
}

/// `--tables` naming a folder that does not exist (a typo, most likely): exit 2, the folder
/// named, nothing made; with `--no-generate` too.
#[test]
fn a_named_folder_that_does_not_exist_is_an_error() {
    let root = tempfile::tempdir().unwrap();
    let typo = root.path().join("tabels");
    let t = typo.to_str().unwrap();
    for extra in [&[][..], &["--no-generate"][..]] {
        let o = retro(&[&["serve", "--addr", "127.0.0.1:0", "--tables", t], extra].concat());
        let text = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(
            text.contains(t) && text.contains("no such folder"),
            "{text}"
        );
        assert!(!typo.exists(), "{text}");
    }
}
