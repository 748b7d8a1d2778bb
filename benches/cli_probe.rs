//! Batch probing through the real CLI: `retro probe kbnk -` fed one million random
//! positions (legal and illegal, both sides to move, both bishop colours), one JSON line
//! out per position. Prints positions per second. Run: `cargo bench --bench cli_probe`.

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

/// A FEN with the four pieces on distinct random squares.
fn random_fen(rng: &mut Rng) -> String {
    let mut board = [b'.'; 64];
    for piece in [b'K', b'B', b'N', b'k'] {
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

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let plugin = retro::registry::plugin("kbnk")?;
    retro::generate::generate(&*plugin, dir.path(), &Silent)?;

    const N: usize = 1_000_000;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let input: String = (0..N).map(|_| random_fen(&mut rng) + "\n").collect();

    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", "kbnk", "-", "--tables"])
        .arg(dir.path())
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
    let secs = start.elapsed().as_secs_f64();

    assert_eq!(lines, N, "one answer per position");
    println!(
        "cli batch probe: {N} positions (a fifth of them illegal) in {secs:.2} s = {:.0} positions/s",
        N as f64 / secs
    );
    Ok(())
}
