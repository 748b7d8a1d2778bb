//! Batch probing through the real CLI: `retro probe kbnk -` fed one million random
//! positions (legal and illegal, both sides to move, both bishop colours), one JSON line
//! out per position; then `retro probe chess -` fed one million random KQvKR positions,
//! from dense tables and from compressed ones (`retro compress`) side by side, every
//! answer with every move's value. Prints positions per second. Run: `cargo bench --bench
//! cli_probe`.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use retro::progress::Silent;

/// A small deterministic generator (xorshift), so every run probes the same positions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A FEN with `pieces` on distinct random squares.
fn random_fen(rng: &mut Rng, pieces: &[u8]) -> String {
    let mut board = [b'.'; 64];
    for &piece in pieces {
        loop {
            let sq = (rng.next() % 64) as usize;
            if board[sq] == b'.' {
                board[sq] = piece;
                break;
            }
        }
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                b'.' => empty += 1,
                p => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(p as char);
                }
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let side = if rng.next() % 2 == 0 { "w" } else { "b" };
    format!("{fen} {side} - - 0 1")
}

/// Feed `input` to `retro probe TABLE - --tables DIR`; the lines answered and the seconds.
fn batch(table: &str, dir: &std::path::Path, input: String) -> anyhow::Result<(usize, f64)> {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", table, "-", "--tables"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    // Stream the answers (over a gigabyte of JSON), counting lines without holding them.
    let mut lines = 0usize;
    let mut answers = child.stdout.take().expect("piped");
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = answers.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
    }
    writer.join().expect("writer thread")?;
    child.wait()?;
    Ok((lines, start.elapsed().as_secs_f64()))
}

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let plugin = retro::GAMES.plugin("kbnk")?;
    retro::generate::generate(&*plugin, dir.path(), &Silent)?;

    const N: usize = 1_000_000;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let input: String = (0..N)
        .map(|_| random_fen(&mut rng, b"KBNk") + "\n")
        .collect();
    let (lines, secs) = batch("kbnk", dir.path(), input)?;
    assert_eq!(lines, N, "one answer per position");
    println!(
        "cli batch probe: {N} positions (a fifth of them illegal) in {secs:.2} s = {:.0} positions/s",
        N as f64 / secs
    );

    // KQvKR: dense tables, and the same tables compressed in a folder of their own.
    let kqvkr = retro::chess::material::Material::parse("KQvKR")?;
    for m in retro::chess::plan::closure(&[kqvkr]) {
        let p = retro::GAMES.plugin_in(&m.to_string(), dir.path())?;
        retro::generate::generate(&*p, dir.path(), &Silent)?;
    }
    let small = tempfile::tempdir()?;
    let (mut dense_bytes, mut bytes) = (0, 0);
    for e in std::fs::read_dir(dir.path())? {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == "rtb") && path.file_stem() != Some("kbnk".as_ref())
        {
            let table = retro::table::Table::open(&path)?;
            let c = retro::table::compressed::compress(
                &table,
                small.path(),
                retro::table::compressed::Sides::One,
                None,
                &Silent,
            )?;
            dense_bytes += c.dense_bytes;
            bytes += c.bytes;
        }
    }
    let input: String = (0..N)
        .map(|_| random_fen(&mut rng, b"KQkr") + "\n")
        .collect();
    let (lines, dense) = batch("chess", dir.path(), input.clone())?;
    assert_eq!(lines, N, "one answer per position");
    let (lines, compressed) = batch("chess", small.path(), input)?;
    assert_eq!(lines, N, "one answer per position");
    println!(
        "cli batch probe, KQvKR ({N} random positions, every move's value): dense {:.0} positions/s, compressed {:.0} positions/s ({dense_bytes} bytes dense, {bytes} compressed, {:.1}x smaller); compressed/dense time {:.2}",
        N as f64 / dense,
        N as f64 / compressed,
        dense_bytes as f64 / bytes as f64,
        compressed / dense
    );
    Ok(())
}
