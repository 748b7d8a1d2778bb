//! Progress reporting for long work, decoupled from the terminal.

use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// An indicatif progress bar on stderr: a bar where a phase's total is known, a spinner
/// where it is not, the rate in whole units a second. Where stderr is not a terminal (a log
/// file, a batch job), indicatif draws nothing: each phase then gets one plain line with the
/// time it starts at, and a long phase one more every [`QUIET_EVERY`] (its share done and
/// the time so far), so a run in the background still says where it is.
pub struct Bar {
    bar: indicatif::ProgressBar,
    start: Instant,
    /// Ends the line-writing thread (stderr not a terminal) when dropped.
    _lines: Option<mpsc::Sender<()>>,
}

/// A span of time for people: `42 s`, `3 min 10 s`, `1 h 5 min`.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// How often a phase says where it is when stderr is not a terminal.
pub const QUIET_EVERY: Duration = Duration::from_secs(10);

impl Bar {
    pub fn new() -> Bar {
        let bar = indicatif::ProgressBar::new(0);
        let start = Instant::now();
        let lines = bar.is_hidden().then(|| {
            let (tx, rx) = mpsc::channel::<()>();
            let bar = bar.clone();
            // Woken every QUIET_EVERY until the Bar goes (its sender dropped).
            std::thread::spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(QUIET_EVERY) {
                    if !bar.is_finished() && !bar.message().is_empty() {
                        eprintln!("{}", plain_line(&bar, start));
                    }
                }
            });
            tx
        });
        Bar {
            bar,
            start,
            _lines: lines,
        }
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Where the phase of `bar` is, in one plain line: `  retrograde: 42% (at 1 min 3 s)`.
fn plain_line(bar: &indicatif::ProgressBar, start: Instant) -> String {
    let name = bar.message();
    let at = duration(start.elapsed().as_secs_f64());
    match bar.length().filter(|&n| n > 0) {
        Some(n) => format!(
            "  {name}: {}% (at {at})",
            (bar.position().min(n) as u128 * 100 / n as u128)
        ),
        None => format!("  {name}: {} done (at {at})", bar.position()),
    }
}

/// The rate, in whole units a second with thousands separated (`27,899,003/s`).
fn rate(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = w.write_str(&rate_text(state.per_sec()));
}

fn rate_text(per_sec: f64) -> String {
    format!("{}/s", indicatif::HumanCount(per_sec.round() as u64))
}

fn style(known_total: bool) -> indicatif::ProgressStyle {
    let template = if known_total {
        "{msg:>24} [{bar:40}] {percent:>3}% {human_pos}/{human_len} ({rate}, {eta})"
    } else {
        "{msg:>24} {spinner} {human_pos} ({rate}, {elapsed})"
    };
    indicatif::ProgressStyle::with_template(template)
        .expect("static template is valid")
        .with_key("rate", rate)
        .progress_chars("=> ")
}

/// A bar where one is wanted (`Some`), no report at all otherwise (`--quiet`).
impl Progress for Option<Bar> {
    fn phase(&self, name: &str, total: u64) {
        if let Some(b) = self {
            b.phase(name, total);
        }
    }
    fn advance(&self, n: u64) {
        if let Some(b) = self {
            b.advance(n);
        }
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
        self.bar.set_style(style(total > 0));
        self.bar.set_message(name.to_string());
        self.bar.set_length(total);
        self.bar.set_position(0);
        if total == 0 && !self.bar.is_hidden() {
            // A spinner turns on its own: a phase that counts nothing still shows life.
            self.bar.enable_steady_tick(Duration::from_millis(200));
        } else {
            self.bar.disable_steady_tick();
        }
    }
    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_say_the_share_done_or_the_count() {
        let bar = indicatif::ProgressBar::hidden();
        bar.set_message("retrograde");
        bar.set_length(400);
        bar.set_position(100);
        let t = Instant::now() - Duration::from_secs(75);
        assert_eq!(plain_line(&bar, t), "  retrograde: 25% (at 1 min 15 s)");
        bar.set_length(0);
        assert_eq!(
            plain_line(&bar, t),
            "  retrograde: 100 done (at 1 min 15 s)"
        );
    }

    #[test]
    fn rates_are_whole_numbers() {
        assert_eq!(rate_text(27_899_002.566_5), "27,899,003/s");
        assert_eq!(rate_text(0.4), "0/s");
        // Both templates parse, with the rate key.
        let (_, _) = (style(true), style(false));
    }
}

#[cfg(test)]
mod duration_tests {
    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(super::duration(41.6), "42 s");
        assert_eq!(super::duration(190.0), "3 min 10 s");
        assert_eq!(super::duration(3900.0), "1 h 5 min");
        assert_eq!(super::duration(-1.0), "0 s");
    }
}
