//! Whether this processor has the instructions the build was compiled for.
//!
//! The workspace builds for the processor that builds it (`.cargo/config.toml`). A binary
//! copied to an older one would die on its first such instruction with "illegal
//! instruction" and no word of why: `main` asks first and names what is missing.

/// The instruction sets this build uses that the running processor lacks.
#[cfg(target_arch = "x86_64")]
pub fn missing() -> Vec<&'static str> {
    let mut out = Vec::new();
    macro_rules! check {
        ($($f:tt),*) => {$(
            if cfg!(target_feature = $f) && !std::arch::is_x86_feature_detected!($f) {
                out.push($f);
            }
        )*};
    }
    check!(
        "sse3",
        "ssse3",
        "sse4.1",
        "sse4.2",
        "popcnt",
        "avx",
        "avx2",
        "fma",
        "f16c",
        "bmi1",
        "bmi2",
        "lzcnt",
        "movbe",
        "avx512f",
        "avx512bw",
        "avx512cd",
        "avx512dq",
        "avx512vl",
        "avx512vbmi",
        "avx512vbmi2",
        "avx512vnni",
        "avx512bitalg",
        "avx512vpopcntdq",
        "avx512ifma",
        "gfni",
        "vaes",
        "vpclmulqdq",
        "pclmulqdq",
        "aes",
        "sha",
        "adx"
    );
    out
}

/// Other processors: the build's flags are left as they are.
#[cfg(not(target_arch = "x86_64"))]
pub fn missing() -> Vec<&'static str> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    /// The tests run where they were built: every instruction set the build uses is there,
    /// so each name the check asks about is one the detection knows by that name.
    #[test]
    fn the_building_processor_has_what_it_built_for() {
        assert_eq!(super::missing(), Vec::<&str>::new());
    }
}
