//! Memory sizes: the memory this machine has free, `--max-memory` arguments, and sizes
//! written for people. A generation that would not fit is refused before it starts, not
//! killed by the kernel hours into a solve.

use std::fmt;

/// A size that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a size: expected a number of bytes with an optional unit, e.g. 512M, 4G, 1.5GiB or 2000000000")]
pub struct SizeError(pub String);

/// Parse a size: a number (decimals allowed) with an optional unit. `K`, `M`, `G`, `T`
/// (with or without `iB`/`B`) are binary multiples, as `free` and Slurm's `--mem` read them;
/// `kB`/`MB`/`GB`/`TB` are decimal, and a bare number is bytes (as Dask resources are).
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let err = || SizeError(s.to_string());
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num.parse().map_err(|_| err())?;
    let mult: f64 = match unit.trim() {
        "" | "B" => 1.0,
        "K" | "KiB" => 1024.0,
        "M" | "MiB" => 1024f64.powi(2),
        "G" | "GiB" => 1024f64.powi(3),
        "T" | "TiB" => 1024f64.powi(4),
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return Err(err()),
    };
    let bytes = x * mult;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(err());
    }
    Ok(bytes as u64)
}

/// `MemAvailable` from `/proc/meminfo`: what the kernel says can be allocated without
/// swapping. `None` where there is no such file (not Linux) or no such line.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    mem_available(&text)
}

/// The `MemAvailable` line of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line["MemAvailable:".len()..].split_whitespace();
    let n: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// A byte count for people: `1.75 GiB`, `312.0 MiB`, `900 B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
        let mut x = self.0 as f64;
        let mut u = 0;
        while x >= 1024.0 && u + 1 < units.len() {
            x /= 1024.0;
            u += 1;
        }
        if u == 0 {
            write!(f, "{} B", self.0)
        } else {
            write!(f, "{x:.2} {}", units[u])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2000000000"), Ok(2_000_000_000));
        assert_eq!(parse_size("2e9"), Ok(2_000_000_000));
        assert_eq!(parse_size("3GB"), Ok(3_000_000_000));
        for bad in ["", "G", "4X", "-1G", "0", "four", "1.2.3G"] {
            assert_eq!(parse_size(bad), Err(SizeError(bad.to_string())), "{bad}");
        }
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(mem_available(text), Some(22_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert!(available().is_some_and(|n| n > 0), "this machine is Linux");
    }

    #[test]
    fn shown() {
        assert_eq!(Bytes(900).to_string(), "900 B");
        assert_eq!(Bytes(1_879_048_192).to_string(), "1.75 GiB");
    }
}
