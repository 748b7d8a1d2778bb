//! `retro compress` and `retro decompress`: a table's compressed form beside its dense one,
//! and the dense one back from it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use retro::progress::Bar;
use retro::table::{compressed, Table, EXTENSION};

/// Options of `retro compress`.
#[derive(Clone, Debug, clap::Args)]
pub struct CompressArgs {
    /// Dense table files (.rtb); each gets a compressed twin (.rtbc) beside it. With
    /// `--block-slots`, compressed ones (.rtbc) too, each written again in its place.
    pub files: Vec<PathBuf>,
    /// Every dense table in this folder (a twin already there is made again); with
    /// `--block-slots`, every compressed one without a dense twin too.
    #[arg(long, value_name = "DIR")]
    pub all: Option<PathBuf>,
    /// Worker threads (default: one per core). The file is identical whatever the count.
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
    /// Sides to move stored: `one` (the default for chess) keeps the section that
    /// compresses smaller and finds the other one ply on; `both` (the default for other
    /// games) keeps both, for the fastest probes.
    #[arg(long, value_enum)]
    pub sides: Option<SidesArg>,
    /// zstd level, 1 (fastest) to 19 (smallest) [default: 14 with a shorter search for
    /// distance to mate, 15 for DTZ tables]. The 35 DTZ tables of up to 4 pieces: 5.5 MB at
    /// 16 in 58 s of CPU, 7.2 MB at 9 in 8 s.
    #[arg(long, value_parser = level)]
    pub level: Option<i32>,
    /// Slots a block, a multiple of 4096 [default: 262144; 4096 past 4 G slots a side].
    /// Smaller blocks take more bytes and answer a probe whose block is not held sooner,
    /// having less to decode. Given a compressed table (.rtbc), writes it again in blocks
    /// of this length.
    #[arg(long, value_name = "SLOTS", value_parser = block_slots)]
    pub block_slots: Option<u32>,
}

/// A block length: a whole number of 4,096-slot tiles, up to 2^24 slots.
pub fn block_slots(s: &str) -> Result<u32, String> {
    const RANGE: &str = "a multiple of 4096 from 4096 to 16777216";
    match s.parse::<u32>() {
        Ok(n) if n > 0 && n % 4096 == 0 && n <= 1 << 24 => Ok(n),
        _ => Err(format!("'{s}' is not {RANGE}")),
    }
}

/// A zstd level within [`compressed::LEVELS`].
pub fn level(s: &str) -> Result<i32, String> {
    let n: i32 = s
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    let r = compressed::LEVELS;
    if r.contains(&n) {
        Ok(n)
    } else {
        Err(format!(
            "{n} is not a level from {} to {}",
            r.start(),
            r.end()
        ))
    }
}

/// `--sides`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SidesArg {
    One,
    Both,
}

/// Options of `retro decompress`.
#[derive(Clone, Debug, clap::Args)]
pub struct DecompressArgs {
    /// A compressed table (.rtbc). The tables its game reads besides its own (chess
    /// sub-tables) are looked for beside it.
    pub file: PathBuf,
    /// Folder for the dense table (default: beside the compressed one).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
}

/// The tables `retro compress` was given: dense ones, and with `--block-slots`,
/// compressed ones to write again (of a folder, those with no dense twin).
fn inputs(a: &CompressArgs) -> Result<Vec<PathBuf>> {
    let mut files = a.files.clone();
    if let Some(dir) = &a.all {
        let again = a.block_slots.is_some();
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == EXTENSION)
                    || again
                        && p.extension().is_some_and(|e| e == compressed::EXTENSION)
                        && !p.with_extension(EXTENSION).exists()
            })
            .collect();
        found.sort();
        files.extend(found);
    }
    if files.is_empty() {
        bail!("give table files (.rtb) to compress, or --all DIR");
    }
    Ok(files)
}

pub fn run_compress(a: &CompressArgs) -> Result<bool> {
    let files = inputs(a)?;
    let (mut dense, mut small, mut made) = (0u64, 0u64, 0usize);
    let start = std::time::Instant::now();
    for f in &files {
        // Opened once: opening a compressed table checks every block.
        let table = Table::open(f)?;
        let (d, s) = match a.block_slots {
            Some(n) if table.is_compressed() => {
                if a.sides.is_some() {
                    bail!(
                        "{}: --sides is for dense tables; a compressed one keeps the sides it stores",
                        f.display()
                    );
                }
                reblock_one(f, &table, a.threads, n, a.level)?
            }
            n => compress_table(f, &table, a.threads, a.sides, a.level, n, true)?,
        };
        dense += d;
        small += s;
        made += 1;
    }
    if made > 1 {
        outln!(
            "{made} tables: {dense} bytes dense, {small} bytes compressed ({:.1}x) in {:.1} s",
            dense as f64 / small.max(1) as f64,
            start.elapsed().as_secs_f64()
        )?;
    }
    Ok(true)
}

/// Compress one dense table beside itself; its dense and compressed sizes.
pub fn compress_one(
    file: &Path,
    threads: Option<usize>,
    sides: Option<SidesArg>,
    level: Option<i32>,
    block_slots: Option<u32>,
    say: bool,
) -> Result<(u64, u64)> {
    let table = Table::open(file)?;
    compress_table(file, &table, threads, sides, level, block_slots, say)
}

/// [`compress_one`] of the table `file`, opened.
fn compress_table(
    file: &Path,
    table: &Table,
    threads: Option<usize>,
    sides: Option<SidesArg>,
    level: Option<i32>,
    block_slots: Option<u32>,
    say: bool,
) -> Result<(u64, u64)> {
    if table.is_compressed() {
        bail!("{} is already compressed", file.display());
    }
    // Chess moves always pass the turn, so either side's slots follow from the other's
    // (and its sub-tables'); the other games keep both unless told.
    let sides = match sides.unwrap_or(if table.header().game == "chess" {
        SidesArg::One
    } else {
        SidesArg::Both
    }) {
        SidesArg::One => compressed::Sides::One,
        SidesArg::Both => compressed::Sides::Both,
    };
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let bar = say.then(Bar::new);
    let t = std::time::Instant::now();
    let c = retro::generate::with_threads(threads, || match block_slots {
        Some(n) => compressed::compress_in_blocks(table, dir, sides, level, n, &bar),
        None => compressed::compress(table, dir, sides, level, &bar),
    })??;
    bar.iter().for_each(Bar::finish);
    if !say {
        return Ok((c.dense_bytes, c.bytes));
    }
    outln!("{}", wrote(file, &c, t.elapsed().as_secs_f64()))?;
    Ok((c.dense_bytes, c.bytes))
}

/// Write the compressed table `file` (opened: `table`) again in blocks of `block_slots`
/// slots, in its place; its dense size and its new size.
fn reblock_one(
    file: &Path,
    table: &Table,
    threads: Option<usize>,
    block_slots: u32,
    level: Option<i32>,
) -> Result<(u64, u64)> {
    let before = table.file_len();
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let bar = Bar::new();
    let t = std::time::Instant::now();
    let c = retro::generate::with_threads(threads, || {
        compressed::reblock(table, dir, block_slots, level, &bar)
    })??
    .context("not a compressed table")?;
    bar.finish();
    outln!(
        "wrote {} again in blocks of {block_slots} slots: {} bytes in {} blocks, {} bytes before ({:.2}x), in {:.1} s",
        c.path.display(),
        c.bytes,
        c.blocks,
        before,
        c.bytes as f64 / before.max(1) as f64,
        t.elapsed().as_secs_f64()
    )?;
    Ok((c.dense_bytes, c.bytes))
}

/// The line that says the compressed form of the dense table `from` is written.
pub fn wrote(from: &Path, c: &compressed::Compressed, seconds: f64) -> String {
    format!(
        "wrote {} ({} bytes, {} blocks{}): {:.1}x smaller than {} ({} bytes), in {:.1} s",
        c.path.display(),
        c.bytes,
        c.blocks,
        c.dropped.as_ref().map_or(String::new(), |s| format!(
            ", section '{s}' found one ply on"
        )),
        c.dense_bytes as f64 / c.bytes.max(1) as f64,
        from.display(),
        c.dense_bytes,
        seconds
    )
}

pub fn run_decompress(a: &DecompressArgs) -> Result<bool> {
    let loaded = retro::GAMES.open_file(&a.file, true)?;
    if !loaded.table.is_compressed() {
        bail!("{} is not a compressed table", a.file.display());
    }
    let dir = match &a.out {
        Some(d) => d.clone(),
        None => a
            .file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf(),
    };
    let bar = Bar::new();
    let (path, _) = retro::generate::with_threads(a.threads, || {
        retro::plugin::decompress(&*loaded.plugin, &loaded.table, &dir, &bar)
    })??;
    bar.finish();
    outln!(
        "wrote {} ({} bytes), identical to the table compressed (its checksums match)",
        path.display(),
        std::fs::metadata(&path)?.len()
    )?;
    Ok(true)
}
