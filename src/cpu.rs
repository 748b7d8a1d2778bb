//! Whether this processor has the instructions the build was compiled for.
//!
//! The workspace builds for the processor that builds it (`.cargo/config.toml`). A binary
//! copied to an older one would die on its first such instruction with "illegal
//! instruction" and no word of why: `main` asks first and names what is missing.
//!
//! The processor is asked by CPUID itself: `is_x86_feature_detected!` answers true, without
//! asking, for every instruction set the build was compiled with.

/// The instruction sets this build uses that the running processor lacks.
#[cfg(target_arch = "x86_64")]
pub fn missing() -> Vec<&'static str> {
    let cpu = x86::Cpu::read();
    x86::FEATURES
        .iter()
        .filter(|f| f.built && !cpu.has(f))
        .map(|f| f.name)
        .collect()
}

/// Other processors: the build's flags are left as they are.
#[cfg(not(target_arch = "x86_64"))]
pub fn missing() -> Vec<&'static str> {
    Vec::new()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::__cpuid_count;

    /// Where CPUID reports an instruction set: a register of a leaf.
    #[derive(Clone, Copy)]
    pub enum Reg {
        /// Leaf 1, ECX.
        L1Ecx,
        /// Leaf 7 (sub-leaf 0), EBX.
        L7Ebx,
        /// Leaf 7 (sub-leaf 0), ECX.
        L7Ecx,
        /// Leaf 0x8000_0001, ECX.
        ExtEcx,
    }

    /// An instruction set: its `target_feature` name, whether this build uses it, and its
    /// CPUID bit.
    pub struct Feature {
        pub name: &'static str,
        pub built: bool,
        pub reg: Reg,
        pub bit: u8,
    }

    macro_rules! features {
        ($(($name:tt, $reg:ident, $bit:expr)),* $(,)?) => {
            [$(Feature {
                name: $name,
                built: cfg!(target_feature = $name),
                reg: Reg::$reg,
                bit: $bit,
            }),*]
        };
    }

    /// The instruction sets the compiler may use for a native build of this code (the
    /// vector, bit-manipulation and arithmetic extensions of x86-64 processors to date).
    pub static FEATURES: [Feature; 31] = features![
        ("sse3", L1Ecx, 0),
        ("pclmulqdq", L1Ecx, 1),
        ("ssse3", L1Ecx, 9),
        ("fma", L1Ecx, 12),
        ("sse4.1", L1Ecx, 19),
        ("sse4.2", L1Ecx, 20),
        ("movbe", L1Ecx, 22),
        ("popcnt", L1Ecx, 23),
        ("aes", L1Ecx, 25),
        ("avx", L1Ecx, 28),
        ("f16c", L1Ecx, 29),
        ("bmi1", L7Ebx, 3),
        ("avx2", L7Ebx, 5),
        ("bmi2", L7Ebx, 8),
        ("avx512f", L7Ebx, 16),
        ("avx512dq", L7Ebx, 17),
        ("adx", L7Ebx, 19),
        ("avx512ifma", L7Ebx, 21),
        ("avx512cd", L7Ebx, 28),
        ("sha", L7Ebx, 29),
        ("avx512bw", L7Ebx, 30),
        ("avx512vl", L7Ebx, 31),
        ("avx512vbmi", L7Ecx, 1),
        ("avx512vbmi2", L7Ecx, 6),
        ("gfni", L7Ecx, 8),
        ("vaes", L7Ecx, 9),
        ("vpclmulqdq", L7Ecx, 10),
        ("avx512vnni", L7Ecx, 11),
        ("avx512bitalg", L7Ecx, 12),
        ("avx512vpopcntdq", L7Ecx, 14),
        ("lzcnt", ExtEcx, 5),
    ];

    /// The CPUID registers that report [`FEATURES`] (0 for a leaf the processor lacks).
    pub struct Cpu {
        l1_ecx: u32,
        l7_ebx: u32,
        l7_ecx: u32,
        ext_ecx: u32,
    }

    impl Cpu {
        pub fn read() -> Cpu {
            // CPUID exists on every x86-64 processor; leaves past the highest it reports
            // answer with another leaf's data, so they are asked only when reported.
            let max = __cpuid_count(0, 0).eax;
            let max_ext = __cpuid_count(0x8000_0000, 0).eax;
            let l7 = (max >= 7).then(|| __cpuid_count(7, 0));
            Cpu {
                l1_ecx: __cpuid_count(1, 0).ecx,
                l7_ebx: l7.map_or(0, |r| r.ebx),
                l7_ecx: l7.map_or(0, |r| r.ecx),
                ext_ecx: if max_ext >= 0x8000_0001 {
                    __cpuid_count(0x8000_0001, 0).ecx
                } else {
                    0
                },
            }
        }

        pub fn has(&self, f: &Feature) -> bool {
            let word = match f.reg {
                Reg::L1Ecx => self.l1_ecx,
                Reg::L7Ebx => self.l7_ebx,
                Reg::L7Ecx => self.l7_ecx,
                Reg::ExtEcx => self.ext_ecx,
            };
            word >> f.bit & 1 != 0
        }
    }
}

#[cfg(test)]
mod tests {
    /// The tests run where they were built: every instruction set the build uses is there.
    #[test]
    fn the_building_processor_has_what_it_built_for() {
        assert_eq!(super::missing(), Vec::<&str>::new());
    }

    /// Each CPUID bit read is the one Linux reads for the same instruction set: the
    /// processor's flags in /proc/cpuinfo, under the kernel's names.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn the_cpuid_bits_agree_with_the_kernels_flags() {
        let info = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let flags: Vec<&str> = info
            .lines()
            .find_map(|l| l.strip_prefix("flags"))
            .expect("a flags line")
            .trim_start_matches([' ', '\t', ':'])
            .split_whitespace()
            .collect();
        let kernel_name = |name: &str| match name {
            "sse3" => "pni".to_string(),
            "lzcnt" => "abm".to_string(),
            "sha" => "sha_ni".to_string(),
            n if n.starts_with("sse4.") => n.replace('.', "_"),
            n if n.starts_with("avx512")
                && ["vbmi2", "vnni", "bitalg", "vpopcntdq"].contains(&&n[6..]) =>
            {
                format!("avx512_{}", &n[6..])
            }
            n => n.to_string(),
        };
        let cpu = super::x86::Cpu::read();
        for f in &super::x86::FEATURES {
            let k = kernel_name(f.name);
            assert_eq!(
                cpu.has(f),
                flags.contains(&k.as_str()),
                "{} (the kernel's {k})",
                f.name
            );
        }
    }
}
