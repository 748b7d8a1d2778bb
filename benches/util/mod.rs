//! What the benchmarks read about their own process (Linux `/proc`).

/// The sum of fields `fields` of `/proc/self/stat` (numbered as proc(5) numbers them),
/// clock ticks, in seconds (100 ticks/s).
fn self_stat_seconds(fields: &[usize]) -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Field 3 (the state) is the first after the command's closing parenthesis.
    let after = s.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| {
        f.get(i - 3)
            .and_then(|x| x.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    fields.iter().map(|&i| tick(i)).sum::<f64>() / 100.0
}

/// CPU time (user + system) this process has used, in seconds.
#[allow(dead_code)] // not every benchmark reports it
pub fn cpu_seconds() -> f64 {
    self_stat_seconds(&[14, 15])
}

/// CPU time (user + system) of this process's children that have ended and been waited
/// for, in seconds.
#[allow(dead_code)] // not every benchmark runs other processes
pub fn children_cpu_seconds() -> f64 {
    self_stat_seconds(&[16, 17])
}

/// Peak resident memory of this process so far (VmHWM), in MiB.
#[allow(dead_code)] // not every benchmark reports it
pub fn peak_mib() -> Option<f64> {
    peak_mib_of("self")
}

/// Peak resident memory so far (VmHWM) of process `pid` (a number, or `self`), in MiB.
#[allow(dead_code)]
pub fn peak_mib_of(pid: &str) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// What one child process cost: wall time, CPU time (user + system), peak resident memory,
/// and peak anonymous memory (resident memory less mapped files: the tables a chess solve
/// maps for its captures are files, not memory it allocated).
#[allow(dead_code)] // not every benchmark runs other processes
pub struct Measured {
    pub wall: f64,
    pub cpu: f64,
    pub peak_mib: f64,
    pub peak_anon_mib: f64,
    pub stdout: String,
}

/// Run `program args` in `dir` with `env`, under `/usr/bin/time` (peak RSS and CPU time of
/// the whole run), sampling the process's `RssAnon` every 20 ms. The files written before
/// (the untimed sub-tables) are flushed to disk first, so that their write-back does not
/// run beside the measured program, whichever program that is.
#[allow(dead_code)]
pub fn measure(
    program: &std::path::Path,
    args: &[&str],
    dir: &std::path::Path,
    env: &[(&str, &str)],
) -> Result<Measured, String> {
    use std::process::{Command, Stdio};
    let synced = Command::new("sync")
        .status()
        .map_err(|e| format!("sync: {e}"))?;
    if !synced.success() {
        return Err(format!("sync: {synced}"));
    }
    let start = std::time::Instant::now();
    let mut child = Command::new("/usr/bin/time")
        .args(["-f", "%M %U %S"])
        .arg(program)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("/usr/bin/time {}: {e}", program.display()))?;
    let time_pid = child.id();
    // Pipes drained on threads: a chatty child must not block on a full pipe.
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let mut peak_anon_kib = 0f64;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        // The measured program is `time`'s one child.
        let children = format!("/proc/{time_pid}/task/{time_pid}/children");
        if let Some(pid) = std::fs::read_to_string(children)
            .ok()
            .and_then(|c| c.split_whitespace().next().map(str::to_string))
        {
            if let Some(kib) = std::fs::read_to_string(format!("/proc/{pid}/status"))
                .ok()
                .and_then(|s| {
                    let line = s.lines().find(|l| l.starts_with("RssAnon:"))?.to_string();
                    line.split_whitespace().nth(1)?.parse::<f64>().ok()
                })
            {
                peak_anon_kib = peak_anon_kib.max(kib);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let wall = start.elapsed().as_secs_f64();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let f: Vec<f64> = stderr
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if !status.success() || f.len() != 3 {
        return Err(format!("{} {args:?}: {stderr}", program.display()));
    }
    Ok(Measured {
        wall,
        cpu: f[1] + f[2],
        peak_mib: f[0] / 1024.0,
        peak_anon_mib: peak_anon_kib / 1024.0,
        stdout,
    })
}
