//! Where the served process table comes from: a generated workload
//! (`--processes N --threads-per-process M`) or a replayed trace
//! (`--from-trace FILE [--at LINE]`).
//!
//! Both end in a [`Kernel`] handed to the exporter or the FUSE server
//! ([`super::export::export`], [`super::fuse::mount`]): any other source of
//! a `Kernel` plugs in there.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use taskcore::mm::{parse_maps, MmLayout, MmStruct};
use taskcore::uapi::{PID_MAX_DEFAULT, PID_MAX_LIMIT};
use taskcore::{CloneArgs, Config, Kernel, TaskId};

/// Where the state comes from.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SourceArgs {
    /// Generated workload: this many processes under a shell.
    #[arg(long, default_value_t = 8)]
    pub(crate) processes: u32,
    /// Generated workload: threads per process, the main thread included.
    #[arg(long, default_value_t = 1)]
    pub(crate) threads_per_process: u32,
    /// Replay this `strace -f` recording instead and serve its state.
    #[arg(long)]
    pub(crate) from_trace: Option<PathBuf>,
    /// With `--from-trace`: stop the replay after this line (1-based).
    #[arg(long, requires = "from_trace")]
    pub(crate) at: Option<usize>,
}

/// A process table to serve and the wall-clock time its clock's 0 stands
/// for (boot).
#[derive(Debug)]
pub(crate) struct Loaded {
    pub(crate) kernel: Kernel,
    /// Boot time, seconds since the epoch, on the wall clock.
    pub(crate) boot_wall_s: u64,
}

/// Builds the process table the arguments ask for.
pub(crate) fn load(args: &SourceArgs) -> Result<Loaded, String> {
    let kernel = match &args.from_trace {
        Some(file) => from_trace(file, args.at)?,
        None => generate(args.processes, args.threads_per_process)?,
    };
    // The emulated clock started at boot: boot was that long before now.
    let wall_now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| e.to_string())?
        .as_secs();
    let boot_wall_s = wall_now.saturating_sub(kernel.now_ns() / 1_000_000_000);
    Ok(Loaded {
        kernel,
        boot_wall_s,
    })
}

/// The state of `file`'s replay after line `at` (or at its end).
///
/// # Errors
/// A message naming the file when it cannot be read.
fn from_trace(file: &std::path::Path, at: Option<usize>) -> Result<Kernel, String> {
    taskcore_replay::kernel_at(file, at).map_err(|e| e.to_string())
}

/// The address space of every generated worker: a PIE binary, its heap,
/// libc, the loader and the stack, laid out as Linux would.
const WORKER_MAPS: &str = "\
5581d1a00000-5581d1a02000 r--p 00000000 08:01 1048602                    /usr/bin/worker
5581d1a02000-5581d1a09000 r-xp 00002000 08:01 1048602                    /usr/bin/worker
5581d1a09000-5581d1a0c000 r--p 00009000 08:01 1048602                    /usr/bin/worker
5581d1a0c000-5581d1a0d000 rw-p 0000b000 08:01 1048602                    /usr/bin/worker
5581d2400000-5581d2421000 rw-p 00000000 00:00 0                          [heap]
7f5e1c000000-7f5e1c028000 r--p 00000000 08:01 1054371                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f5e1c028000-7f5e1c19d000 r-xp 00028000 08:01 1054371                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f5e1c19d000-7f5e1c1f5000 r--p 0019d000 08:01 1054371                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f5e1c1f5000-7f5e1c1f9000 r--p 001f4000 08:01 1054371                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f5e1c1f9000-7f5e1c1fb000 rw-p 001f8000 08:01 1054371                    /usr/lib/x86_64-linux-gnu/libc.so.6
7f5e1c1fb000-7f5e1c208000 rw-p 00000000 00:00 0 
7f5e1c3c0000-7f5e1c3c1000 r--p 00000000 08:01 1054355                    /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7f5e1c3c1000-7f5e1c3e7000 r-xp 00001000 08:01 1054355                    /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7f5e1c3e7000-7f5e1c3f1000 r--p 00027000 08:01 1054355                    /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7f5e1c3f1000-7f5e1c3f5000 rw-p 00031000 08:01 1054355                    /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
7ffd4f1c0000-7ffd4f1e1000 rw-p 00000000 00:00 0                          [stack]
";

/// The names and arguments generated processes get, in turn.
const PROGRAMS: [(&str, &str, &[&str]); 4] = [
    ("/usr/bin/worker", "worker", &["--jobs", "4"]),
    ("/usr/sbin/httpd", "httpd", &["-DFOREGROUND"]),
    (
        "/usr/bin/python3",
        "python3",
        &["/srv/app/main.py", "--port", "8080"],
    ),
    ("/usr/bin/sleep", "sleep", &["1000"]),
];

fn fork(k: &mut Kernel, parent: TaskId) -> Result<TaskId, String> {
    k.fork(parent).map_err(|e| format!("fork: {}", e.name()))
}

fn exec(k: &mut Kernel, t: TaskId, path: &str, argv: &[&str]) -> Result<(), String> {
    let argv: Vec<&[u8]> = argv.iter().map(|a| a.as_bytes()).collect();
    k.execve_argv(t, path, &argv)
        .map_err(|e| format!("execve {path}: {}", e.name()))
}

/// A generated process table: init (pid 1) and a login shell (pid 2,
/// session and group leader) whose children are `processes` programs of
/// `threads` threads each, started 10 ms apart from 2 s after boot; the
/// clock then stands one minute after boot (or later for large tables).
/// The first program runs (`R`), the others sleep.
///
/// # Errors
/// A message if the table does not fit `PID_MAX_LIMIT`.
pub(crate) fn generate(processes: u32, threads: u32) -> Result<Kernel, String> {
    let threads = threads.max(1);
    let needed = 2 + u64::from(processes) * u64::from(threads);
    if needed >= u64::from(PID_MAX_LIMIT) {
        return Err(format!(
            "{processes} processes x {threads} threads exceed pid_max ({PID_MAX_LIMIT})"
        ));
    }
    let pid_max = (needed + 1000)
        .next_power_of_two()
        .clamp(u64::from(PID_MAX_DEFAULT), u64::from(PID_MAX_LIMIT)) as u32;
    let mut k = Kernel::new(Config {
        pid_max,
        ..Config::default()
    })
    .map_err(|e| format!("kernel: {}", e.name()))?;
    let init = k.init_task().map_err(|e| e.name().to_string())?;
    k.set_cmdline(init, &[b"/sbin/init"])
        .map_err(|e| e.name().to_string())?;
    k.set_time(1_000_000_000);
    let sh = fork(&mut k, init)?;
    k.setsid(sh).map_err(|e| format!("setsid: {}", e.name()))?;
    exec(&mut k, sh, "/bin/bash", &["-bash"])?;
    let template = MmStruct::from_vmas(
        parse_maps(WORKER_MAPS).map_err(|e| format!("{e:?}"))?,
        MmLayout::default(),
    )
    .map_err(|e| format!("worker address space: {}", e.name()))?;
    let mut t_ns = 2_000_000_000u64;
    for i in 0..processes {
        k.set_time(t_ns);
        let p = fork(&mut k, sh)?;
        let (path, name, args) = PROGRAMS[i as usize % PROGRAMS.len()];
        let mut argv = vec![name];
        argv.extend_from_slice(args);
        exec(&mut k, p, path, &argv)?;
        k.set_mm(p, template.clone())
            .map_err(|e| format!("set_mm: {}", e.name()))?;
        for _ in 1..threads {
            k.clone(p, &CloneArgs::thread())
                .map_err(|e| format!("clone thread: {}", e.name()))?;
        }
        if i == 0 {
            k.set_running(p, true).map_err(|e| e.name().to_string())?;
        }
        t_ns += 10_000_000;
    }
    k.set_time(t_ns.max(60_000_000_000));
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskcore::procfs::{Node, ProcClock, ProcFs};

    #[test]
    fn generated_table_has_the_asked_shape() {
        let k = generate(5, 3).unwrap();
        // init, bash, 5 processes of 3 threads.
        assert_eq!(k.nr_processes(), 7);
        assert_eq!(k.nr_tasks(), 2 + 15);
        let fs = ProcFs::new(&k, k.root_ns(), ProcClock::from_kernel(&k, 0)).unwrap();
        let comm = fs.read(fs.resolve(b"3/comm").unwrap()).unwrap();
        assert_eq!(comm, b"worker\n");
        let cmd = fs.read(fs.resolve(b"4/cmdline").unwrap()).unwrap();
        // pid 3 has threads 4 and 5: the second process is pid 6.
        assert_eq!(cmd, b"worker\0--jobs\x004\0");
        let cmd = fs.read(fs.resolve(b"6/cmdline").unwrap()).unwrap();
        assert_eq!(cmd, b"httpd\0-DFOREGROUND\0");
        assert!(fs
            .read(fs.resolve(b"3/stat").unwrap())
            .unwrap()
            .starts_with(b"3 (worker) R 2 2 2 "));
        assert!(matches!(
            fs.resolve(b"3/task/5"),
            Ok(Node::Tid { nr: 5, .. })
        ));
    }

    #[test]
    fn oversized_tables_are_refused() {
        assert!(generate(3_000_000, 2).is_err());
    }
}
