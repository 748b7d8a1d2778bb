//! What the benchmarks read about their own process (Linux `/proc`).

/// CPU time (user + system) this process has used, in seconds (100 ticks/s).
pub fn cpu_seconds() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let after = s.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 of the file (utime, stime) are 11 and 12 after the command name.
    (tick(11) + tick(12)) / 100.0
}

/// Peak resident memory of this process so far (VmHWM), in MiB.
#[allow(dead_code)] // not every benchmark reports it
pub fn peak_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
