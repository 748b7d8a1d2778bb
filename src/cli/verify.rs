//! `retro verify`: a table file's checksums, then every record against its successors.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use retro::generate::with_threads;
use retro::progress::Bar;
use retro::table::reader::ChecksumStatus;

use crate::cli;

#[derive(Args)]
pub struct VerifyArgs {
    /// A table file (.rtb, or compressed .rtbc).
    pub file: PathBuf,
    /// How many mismatching positions to name.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = cli::threads)]
    pub threads: Option<usize>,
}

pub fn run(a: VerifyArgs) -> Result<bool> {
    let loaded = retro::GAMES.open_file(&a.file, false)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    let bar = Bar::new();
    let report = with_threads(a.threads, || plugin.verify(table, a.limit, &bar))?;
    bar.finish();
    match &report.checksum {
        ChecksumStatus::Ok => outln!("checksum: ok")?,
        ChecksumStatus::Mismatch(bad) => outln!("checksum: MISMATCH in {}", bad.join(", "))?,
    }
    if report.statistics.is_empty() {
        outln!("statistics: ok (recomputed from the records)")?;
    } else {
        outln!(
            "statistics: MISMATCH in {} (the header's counts differ from the records)",
            report.statistics.join(", ")
        )?;
    }
    outln!(
        "records:  {} checked, {} inconsistent",
        report.checked,
        report.bad
    )?;
    for m in &report.first {
        outln!("  {m}")?;
    }
    outln!("{}", if report.ok() { "OK" } else { "FAILED" })?;
    Ok(report.ok())
}
