//! `retro info`: a table file's header, parameters, statistics and checksum status.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use retro::summary;
use retro::table::reader::ChecksumStatus;

#[derive(Args)]
pub struct InfoArgs {
    /// A table file (.rtb, or compressed .rtbc).
    pub file: PathBuf,
}

pub fn run(a: InfoArgs) -> Result<bool> {
    let loaded = retro::GAMES.open_file(&a.file, false)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    let h = table.header();
    outln!(
        "file:      {} ({} bytes)",
        a.file.display(),
        table.file_len()
    )?;
    match table.compressed_blocks() {
        Some(n) => {
            outln!(
                "format:    retro compressed table version {} ({n} blocks of {} values; the dense table's header follows)",
                retro::table::compressed::VERSION,
                table.compressed_block_slots().unwrap_or(0)
            )?;
            let stored = table.sections_stored();
            for (s, kept) in h.sections.iter().zip(stored) {
                if !kept {
                    outln!(
                        "dropped:   section '{}' (its values found one ply on, from its moves)",
                        s.name
                    )?;
                }
            }
        }
        None => outln!("format:    retro table version {}", retro::table::VERSION)?,
    }
    outln!("table:     {} — {}", h.name, plugin.title())?;
    let params: Vec<String> = h.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    outln!("game:      {} {}", h.game, params.join(" "))?;
    for s in &h.sections {
        outln!(
            "section:   {:<8} {:>12} records at offset {:>10}, checksum {:016x}",
            s.name,
            s.records,
            s.offset,
            s.checksum
        )?;
    }
    let status = table.checksum_status();
    match &status {
        ChecksumStatus::Ok => outln!("checksum:  ok")?,
        ChecksumStatus::Mismatch(bad) => outln!("checksum:  MISMATCH in {}", bad.join(", "))?,
    }
    let unit = plugin.distance_unit();
    out!("{}", summary::render(&summary::stats(h, unit), unit))?;
    if status == ChecksumStatus::Ok {
        for line in plugin.summary_lines(table) {
            outln!("{line}")?;
        }
    }
    Ok(status == ChecksumStatus::Ok)
}
