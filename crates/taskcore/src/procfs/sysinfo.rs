//! What the machine looks like ([`SystemInfo`]): what the process core does
//! not model (memory, CPUs, load) for the system-wide `/proc` files, as the
//! caller fills it in.

/// What the machine looks like, for the files the process core cannot
/// derive.
///
/// # Linux
/// No single analogue: `totalram_pages()`, `num_online_cpus()`,
/// `avenrun[]`, `RLIMIT_SIGPENDING`, the CPU's identification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemInfo {
    /// Online CPUs (at least 1 is shown).
    pub nr_cpus: u32,
    /// `MemTotal`, kB.
    pub mem_total_kb: u64,
    /// `MemFree`, kB.
    pub mem_free_kb: u64,
    /// `MemAvailable`, kB.
    pub mem_available_kb: u64,
    /// `Cached`, kB.
    pub cached_kb: u64,
    /// `Buffers`, kB.
    pub buffers_kb: u64,
    /// Load averages over 1, 5 and 15 minutes, in hundredths.
    pub loadavg: [u64; 3],
    /// `MAX_NUMNODES` (width of `Mems_allowed:`).
    pub max_numnodes: u32,
    /// `model name` of `/proc/cpuinfo`.
    pub cpu_model: String,
    /// `cpu MHz` of `/proc/cpuinfo`, in kHz.
    pub cpu_khz: u64,
}

impl Default for SystemInfo {
    /// Two CPUs, 4 GiB of which 3.5 free, load 0, Debian's
    /// `MAX_NUMNODES` (1024).
    fn default() -> Self {
        SystemInfo {
            nr_cpus: 2,
            mem_total_kb: 4 << 20,
            mem_free_kb: 3584 << 10,
            mem_available_kb: 3840 << 10,
            cached_kb: 256 << 10,
            buffers_kb: 32 << 10,
            loadavg: [0, 0, 0],
            max_numnodes: 1024,
            cpu_model: "taskcore virtual CPU".to_string(),
            cpu_khz: 2_600_000,
        }
    }
}

impl SystemInfo {
    /// Online CPUs, at least 1.
    pub(crate) fn cpus(&self) -> u64 {
        u64::from(self.nr_cpus.max(1))
    }
}
