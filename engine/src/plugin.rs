//! A game with its parameters, type-erased: what the registry, the CLI and the server hold
//! for a table, whatever its game.

use crate::game::{Game, Index, Records, Section, SolveOptions, Value};
use crate::present::{DistanceUnit, GameText, Presented, ProbeError, StoredAs};
use crate::progress::Progress;
use crate::solve::SolveError;
use crate::table::{Table, TableError};

/// A game with its parameters, type-erased.
pub trait Plugin: Send + Sync {
    /// Table name and file stem: `kbnk`, `mnk-4x3-3`.
    fn name(&self) -> String;
    /// Human description.
    fn title(&self) -> String;
    /// Game id and parameters, as in the table header.
    fn params(&self) -> (&'static str, Vec<(String, i64)>);
    fn sections(&self) -> Vec<Section>;
    fn distance_unit(&self) -> DistanceUnit;
    /// Solve every position; the records may be made as they are read (see
    /// [`Solve::solve_records`](crate::solve::Solve::solve_records)).
    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError>;
    /// Probe a position given in the game's notation; an error, never an answer, if a
    /// compressed table it reads turns out damaged.
    fn probe(&self, table: &Table, position: &str) -> Result<Presented, ProbeError>;
    /// Game-specific summary lines (see [`GameText::summary_lines`]).
    fn summary_lines(&self, table: &Table) -> Vec<String>;
    /// What a table's `stored` legal positions stand for (see [`GameText::stored_as`]).
    fn stored_as(&self, stored: u64) -> Option<StoredAs>;
    /// The position stored at `index`, in the game's notation (`None` for an unused slot).
    fn position_at(&self, index: Index) -> Option<String>;
    /// The dense records of `table` (which holds this game's values, compressed or not),
    /// best moves included: see [`crate::rebuild`].
    fn rebuild<'a>(&'a self, table: &'a Table) -> Box<dyn Records + 'a>;
    /// The value of slot `index` of `table` one ply on ([`crate::probe::one_ply`]).
    fn one_ply(&self, table: &Table, index: Index) -> Value;
    /// The first damaged block met by the tables the game reads ([`Game::damage`]).
    fn damage(&self) -> Option<TableError>;
    /// Recompute every record from its successors; see [`crate::verify`].
    fn verify(
        &self,
        table: &Table,
        limit: usize,
        progress: &dyn Progress,
    ) -> crate::verify::VerifyReport;
}

impl<G: GameText + 'static> Plugin for G {
    fn name(&self) -> String {
        Game::name(self)
    }
    fn title(&self) -> String {
        GameText::title(self)
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        Game::params(self)
    }
    fn sections(&self) -> Vec<Section> {
        Game::sections(self)
    }
    fn distance_unit(&self) -> DistanceUnit {
        GameText::distance_unit(self)
    }
    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError> {
        crate::solve::Solve::solve_records(self, opts)
    }
    fn rebuild<'a>(&'a self, table: &'a Table) -> Box<dyn Records + 'a> {
        Box::new(crate::rebuild::Rebuilt { game: self, table })
    }
    fn probe(&self, table: &Table, position: &str) -> Result<Presented, ProbeError> {
        let pos = self.parse_position(position)?;
        // Presenting reads tables too (a chess move's sub-table): both are watched.
        Ok(crate::table::damage::watch(|| {
            let probed = crate::probe::probe(self, table, &pos);
            self.present(&pos, &probed)
        })?)
    }
    fn summary_lines(&self, table: &Table) -> Vec<String> {
        GameText::summary_lines(self, table)
    }
    fn stored_as(&self, stored: u64) -> Option<StoredAs> {
        GameText::stored_as(self, stored)
    }
    fn one_ply(&self, table: &Table, index: Index) -> Value {
        crate::probe::one_ply(self, table, index)
    }
    fn damage(&self) -> Option<TableError> {
        Game::damage(self)
    }
    fn position_at(&self, index: Index) -> Option<String> {
        self.decode(index).map(|p| self.position_text(&p))
    }
    fn verify(
        &self,
        table: &Table,
        limit: usize,
        progress: &dyn Progress,
    ) -> crate::verify::VerifyReport {
        crate::verify::verify(self, table, limit, progress)
    }
}

/// Write the dense table of `plugin` rebuilt from `table` (its compressed form) into
/// `dir`, refused with nothing written unless every section's checksum is the one the
/// compressed table keeps of the original.
pub fn decompress(
    plugin: &dyn Plugin,
    table: &Table,
    dir: &std::path::Path,
    progress: &dyn Progress,
) -> Result<(std::path::PathBuf, crate::table::Header), TableError> {
    // Every slot is read, most several times (each best move from its moves' values): a
    // dropped section is worked out once, in memory, rather than one search a lookup.
    table.complete_all(progress, false)?;
    let (game, params) = plugin.params();
    let sums: Vec<u64> = table.header().sections.iter().map(|s| s.checksum).collect();
    let expect = match crate::table::compressed::Source::blocks(table) {
        Some(b) if b.value_sums() => crate::table::Expect::Values(&sums),
        _ => crate::table::Expect::Records(&sums),
    };
    crate::table::write_records_as(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        &*plugin.rebuild(table),
        Some(expect),
        progress,
    )
}
