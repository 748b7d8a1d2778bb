//! `retro plan`: the task graph of a table set as JSON, the one interface the distributed
//! runners (runners/) read: one task per table, its dependencies and its estimated cost.

use anyhow::{bail, Result};

use retro::chess::material::{Material, SET_PIECES};
use retro::chess::plan;

/// Options of `retro plan`.
#[derive(Clone, Debug, clap::Args)]
pub struct PlanArgs {
    /// The game: only `chess` has a table set split into tasks.
    pub game: String,
    /// Chess materials (`KQvKR KRvKP`): these and every table they lead into.
    pub materials: Vec<String>,
    /// Every table with up to N pieces (3, 4 or 5).
    #[arg(long, value_name = "N", value_parser = set_pieces)]
    pub all: Option<usize>,
    /// Which tables of each material: `dtm`, `dtz` (`KQvKR.dtz`, after its sub-materials'
    /// DTZ tables) or `both`, as `retro generate --metric`.
    #[arg(long, value_enum, default_value = "dtm")]
    pub metric: MetricArg,
}

/// The `--metric` of `generate` and `plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricArg {
    Dtm,
    Dtz,
    Both,
}

impl MetricArg {
    pub fn metrics(self) -> &'static [retro::table::Metric] {
        use retro::table::Metric;
        match self {
            MetricArg::Dtm => &[Metric::Dtm],
            MetricArg::Dtz => &[Metric::Dtz],
            MetricArg::Both => &[Metric::Dtm, Metric::Dtz],
        }
    }
}

/// `--all N` of `plan` and `generate`: a whole set's largest piece count, 3 to
/// [`SET_PIECES`].
pub fn set_pieces(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if (3..=SET_PIECES).contains(&n) => Ok(n),
        _ => Err(
            "--all takes 3, 4 or 5 (pieces, kings included): 6-piece tables are made \
                  one material at a time (`retro generate chess KRRvKRR`)"
                .to_string(),
        ),
    }
}

/// The requested tables, from the arguments of `plan` (or `generate`).
pub fn targets(materials: &[String], all: Option<usize>) -> Result<Vec<Material>> {
    let targets = match (materials, all) {
        ([_, ..], None) => materials
            .iter()
            .map(|m| Material::parse(m))
            .collect::<Result<Vec<_>, _>>()?,
        ([], Some(n)) if (3..=SET_PIECES).contains(&n) => Material::all(n),
        ([], Some(n)) => bail!(
            "--all takes 3, 4 or 5 (pieces, kings included), not {n}: 6-piece tables are \
             made one material at a time (`retro generate chess KRRvKRR`)"
        ),
        ([], None) => bail!("give a material (e.g. `retro generate chess KQvKR`) or `--all N`"),
        _ => bail!("give one material or more (e.g. `KQvKR`), or `--all N`, not both"),
    };
    if targets.iter().any(|t| t.is_bare_kings()) {
        bail!("KvK has no table: two bare kings are a draw");
    }
    Ok(targets)
}

pub fn run(a: &PlanArgs) -> Result<bool> {
    if a.game != "chess" {
        bail!(
            "only chess splits into tables to plan, not '{}' (generate it with `retro generate {}`)",
            a.game,
            a.game
        );
    }
    let targets = targets(&a.materials, a.all)?;
    let tasks = plan::tasks(&targets, a.metric.metrics());
    let core_seconds: f64 = tasks.iter().map(|t| t.estimate.core_seconds).sum();
    let cores = rayon::current_num_threads();
    let doc = serde_json::json!({
        "game": "chess",
        "targets": targets.iter().map(|m| m.canonical().0.to_string()).collect::<Vec<_>>(),
        "tables": tasks,
        // What the whole plan takes, made in order on this machine's cores (one table at a
        // time, each on every core: the peak memory is the largest table's).
        "total": {
            "tables": tasks.len(),
            "positions": tasks.iter().map(|t| t.estimate.positions).sum::<u64>(),
            "dense_file_bytes": tasks.iter().map(|t| t.estimate.file_bytes).sum::<u64>(),
            "memory_bytes": tasks.iter().map(|t| t.estimate.memory_bytes).max().unwrap_or(0),
            "core_seconds": core_seconds.round(),
            "cores": cores,
            "wall_seconds": (core_seconds / cores as f64).round(),
        },
    });
    outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    Ok(true)
}
