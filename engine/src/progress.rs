//! Progress reporting for long work, decoupled from the terminal.

/// Receives progress from the solver and other long jobs. Implementations must be cheap:
/// `advance` is called from worker threads in batches.
pub trait Progress: Sync {
    /// A new phase starts, with `total` units of work (0 if unknown).
    fn phase(&self, name: &str, total: u64);
    /// `n` more units of the current phase are done.
    fn advance(&self, n: u64);
}

/// Reports nothing (tests, library use).
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {
    fn phase(&self, _name: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// An indicatif progress bar on stderr. Where stderr is not a terminal (a log file, a
/// batch job), indicatif draws nothing: each phase then gets one plain line with the time
/// it starts at, so a long run in the background still says where it is.
pub struct Bar {
    bar: indicatif::ProgressBar,
    start: std::time::Instant,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:>24} [{bar:40}] {percent:>3}% {human_pos}/{human_len} ({per_sec}, {eta})",
            )
            .expect("static template is valid")
            .progress_chars("=> "),
        );
        Bar {
            bar,
            start: std::time::Instant::now(),
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl Progress for Bar {
    fn phase(&self, name: &str, total: u64) {
        if self.bar.is_hidden() {
            eprintln!(
                "  {name} (from {:.1} s)",
                self.start.elapsed().as_secs_f64()
            );
        }
        self.bar.set_message(name.to_string());
        self.bar.set_length(total);
        self.bar.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
}
