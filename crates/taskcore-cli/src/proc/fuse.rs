//! `taskcore proc mount DIR`: the emulated `/proc` served live through
//! FUSE, every request rendered by [`taskcore::procfs`] from the current
//! state.
//!
//! # Per caller
//! FUSE tells the server which thread makes each request (in the server's
//! pid namespace). The server converts it to its process id (`Tgid:` of the
//! real `/proc/TID/status`, read through a descriptor of the real `/proc`
//! opened before mounting, so that mounting over `/proc` itself works)
//! and then:
//! - `self` points at that pid and `thread-self` at `PID/task/TID`;
//! - `PID/` exists for the caller even though it is not emulated (it is
//!   not listed), with `stat`, `status`, `cmdline`, ... copied from the real
//!   `/proc`: `ps` insists on reading its own entry.
//!
//! # FUSE settings
//! Entry, attribute and negative timeouts are 0 (a listing or `self`
//! changes per caller); files report size 0 like procfs and are opened
//! with `direct_io`, their content rendered once per open (a `seq_file`
//! snapshot).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use fuser::{
    FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, LockOwner,
    MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry,
    ReplyOpen, Request,
};
use nix::fcntl::{openat, OFlag};
use nix::sys::stat::Mode;
use taskcore::procfs::{
    name_to_int, Attr, DType, DirCursor, DirEntries, Node, PidEntry, ProcClock, ProcFs,
};
use taskcore::{Errno, Kernel};

use super::source::Loaded;

/// Inode numbers of the caller's own (real) entries: above every
/// [`Node::ino`]. Layout: `1 << 48 | what << 44 | tid << 22 | tgid` (pid
/// numbers are below `PID_MAX_LIMIT` = 2^22).
const CALLER_BASE: u64 = 1 << 48;

/// Files of the caller's real `/proc/PID/` (and `task/TID/`) copied
/// through.
const CALLER_FILES: [&str; 7] = [
    "stat", "status", "cmdline", "comm", "statm", "maps", "environ",
];

/// Most entries rendered per `readdir` request (a FUSE reply holds about
/// 4 KiB, some 150 entries).
const READDIR_BATCH: usize = 256;

/// Which node of the caller's own entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CallerWhat {
    /// `PID/` (tid 0) or `PID/task/TID/`.
    Dir,
    /// `PID/task/`.
    TaskDir,
    /// One of [`CALLER_FILES`], of `PID/` (tid 0) or `PID/task/TID/`.
    File(usize),
}

/// A node of the served tree: an emulated one, or the caller's own entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ino {
    Emu(Node),
    Caller {
        tgid: u32,
        tid: u32,
        what: CallerWhat,
    },
}

impl Ino {
    fn from_ino(ino: u64) -> Option<Ino> {
        if ino >= CALLER_BASE {
            let tgid = (ino & 0x3f_ffff) as u32;
            let tid = ((ino >> 22) & 0x3f_ffff) as u32;
            let what = match (ino >> 44) & 0xf {
                0 => CallerWhat::Dir,
                1 => CallerWhat::TaskDir,
                w if (w as usize) < 2 + CALLER_FILES.len() => CallerWhat::File(w as usize - 2),
                _ => return None,
            };
            return Some(Ino::Caller { tgid, tid, what });
        }
        Node::from_ino(ino).map(Ino::Emu)
    }

    fn ino(self) -> u64 {
        match self {
            Ino::Emu(n) => n.ino(),
            Ino::Caller { tgid, tid, what } => {
                let w = match what {
                    CallerWhat::Dir => 0,
                    CallerWhat::TaskDir => 1,
                    CallerWhat::File(i) => 2 + i as u64,
                };
                CALLER_BASE | w << 44 | u64::from(tid) << 22 | u64::from(tgid)
            }
        }
    }

    fn is_dir(self) -> bool {
        match self {
            Ino::Emu(n) => n.is_dir(),
            Ino::Caller { what, .. } => !matches!(what, CallerWhat::File(_)),
        }
    }
}

fn errno(e: Errno) -> fuser::Errno {
    fuser::Errno::from_i32(e as i32)
}

fn kind(t: DType) -> FileType {
    match t {
        DType::Dir => FileType::Directory,
        DType::Reg => FileType::RegularFile,
        DType::Lnk => FileType::Symlink,
    }
}

fn file_attr(a: &Attr) -> FileAttr {
    let now = SystemTime::now();
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: 0,
        atime: now,
        mtime: now,
        ctime: now,
        crtime: now,
        kind: kind(a.d_type),
        perm: (a.mode & 0o7777) as u16,
        nlink: a.nlink,
        uid: a.uid,
        gid: a.gid,
        rdev: 0,
        blksize: 1024,
        flags: 0,
    }
}

/// Where the served state comes from.
pub(crate) enum Source {
    /// A kernel loaded once (a trace, a generated tree).
    Fixed(Box<RwLock<Kernel>>),
    /// The core of a `taskcore run` as it runs: a view published between
    /// two stops for each request; callers and the address-space files
    /// (`maps`, `statm`, which the run's core does not model) are mapped to
    /// the real threads behind the virtual pids.
    Live(Arc<taskcore_run::LiveView>),
}

/// How long a request waits for the supervisor to publish a fresh view
/// (it then serves the newest it has).
const LIVE_WAIT: Duration = Duration::from_millis(200);

/// The FUSE server.
struct ProcFuse {
    kernel: Source,
    /// The kernel clock when the server started, and the real instant.
    base_now_ns: u64,
    started: Instant,
    boot_wall_s: u64,
    /// The real `/proc`, opened before mounting.
    real_proc: OwnedFd,
    next_fh: AtomicU64,
    /// Rendered contents of open files.
    files: Mutex<HashMap<u64, Arc<Vec<u8>>>>,
    /// Cursors of open directories (for the task-directory hint).
    dirs: Mutex<HashMap<u64, DirCursor>>,
}

impl ProcFuse {
    fn clock(&self) -> ProcClock {
        let elapsed = self.started.elapsed().as_nanos() as u64;
        ProcClock {
            now_ns: self.base_now_ns + elapsed,
            boot_ns: 0,
            boot_wall_s: self.boot_wall_s,
        }
    }

    /// Runs `f` on a view of the kernel as of now.
    fn with_fs<R>(&self, f: impl FnOnce(&ProcFs<'_>) -> R) -> Result<R, Errno> {
        match &self.kernel {
            Source::Fixed(k) => {
                let k = k.read().map_err(|_| Errno::EIO)?;
                let fs = ProcFs::new(&k, k.root_ns(), self.clock())?;
                Ok(f(&fs))
            }
            Source::Live(lv) => {
                let v = lv.current(LIVE_WAIT).ok_or(Errno::EIO)?;
                let fs = ProcFs::new(&v.kernel, v.kernel.root_ns(), self.clock())?;
                Ok(f(&fs))
            }
        }
    }

    /// A live run's real thread behind virtual `nr` (`None` for a fixed
    /// kernel, or a number with no traced thread).
    fn real_of(&self, nr: u32) -> Option<u32> {
        match &self.kernel {
            Source::Live(lv) => lv
                .current(LIVE_WAIT)?
                .to_real
                .get(&(nr as i32))
                .map(|&r| r as u32),
            Source::Fixed(_) => None,
        }
    }

    fn read_real(&self, path: &str) -> Result<Vec<u8>, Errno> {
        let fd = openat(
            &self.real_proc,
            path,
            OFlag::O_RDONLY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| Errno::from_i32(e as i32).unwrap_or(Errno::EIO))?;
        let mut f = std::fs::File::from(fd);
        let mut v = Vec::new();
        f.read_to_end(&mut v).map_err(|_| Errno::EIO)?;
        Ok(v)
    }

    /// The process id of the calling thread (its `Tgid:`).
    fn caller(&self, req: &Request) -> (u32, u32) {
        let tid = req.pid();
        let tgid = self
            .read_real(&format!("{tid}/status"))
            .ok()
            .and_then(|s| {
                let s = String::from_utf8_lossy(&s).into_owned();
                s.lines()
                    .find_map(|l| l.strip_prefix("Tgid:"))
                    .and_then(|v| v.trim().parse().ok())
            })
            .unwrap_or(tid);
        if let Source::Live(lv) = &self.kernel {
            // In a run, the caller is its virtual self.
            if let Some(v) = lv.current(LIVE_WAIT) {
                let virt = |r: u32| v.to_virtual.get(&(r as i32)).map(|&x| x as u32);
                if let (Some(vg), Some(vt)) = (virt(tgid), virt(tid)) {
                    return (vg, vt);
                }
            }
        }
        (tgid, tid)
    }

    fn new_fh(&self) -> u64 {
        self.next_fh.fetch_add(1, Ordering::Relaxed)
    }

    fn attr_of(&self, ino: Ino) -> Result<Attr, Errno> {
        match ino {
            Ino::Emu(n) => self.with_fs(|fs| fs.getattr(n))?,
            Ino::Caller { .. } => {
                let dir = ino.is_dir();
                Ok(Attr {
                    ino: ino.ino(),
                    mode: if dir { 0o040555 } else { 0o100444 },
                    nlink: if dir { 2 } else { 1 },
                    uid: 0,
                    gid: 0,
                    size: 0,
                    d_type: if dir { DType::Dir } else { DType::Reg },
                })
            }
        }
    }

    fn do_lookup(&self, req: &Request, parent: Ino, name: &[u8]) -> Result<Ino, Errno> {
        match parent {
            Ino::Emu(p) => match self.with_fs(|fs| fs.lookup(p, name))? {
                Ok(n) => Ok(Ino::Emu(n)),
                Err(Errno::ENOENT) if p == Node::Root => {
                    let (tgid, _) = self.caller(req);
                    if name_to_int(name) == Some(tgid) {
                        Ok(Ino::Caller {
                            tgid,
                            tid: 0,
                            what: CallerWhat::Dir,
                        })
                    } else {
                        Err(Errno::ENOENT)
                    }
                }
                Err(e) => Err(e),
            },
            Ino::Caller {
                tgid,
                tid,
                what: CallerWhat::Dir,
            } => {
                if tid == 0 && name == b"task" {
                    return Ok(Ino::Caller {
                        tgid,
                        tid: 0,
                        what: CallerWhat::TaskDir,
                    });
                }
                CALLER_FILES
                    .iter()
                    .position(|f| f.as_bytes() == name)
                    .map(|i| Ino::Caller {
                        tgid,
                        tid,
                        what: CallerWhat::File(i),
                    })
                    .ok_or(Errno::ENOENT)
            }
            Ino::Caller {
                tgid,
                what: CallerWhat::TaskDir,
                ..
            } => {
                let tid = name_to_int(name).ok_or(Errno::ENOENT)?;
                if tid == 0 || self.real_tids(tgid)?.binary_search(&tid).is_err() {
                    return Err(Errno::ENOENT);
                }
                Ok(Ino::Caller {
                    tgid,
                    tid,
                    what: CallerWhat::Dir,
                })
            }
            Ino::Caller { .. } => Err(Errno::ENOTDIR),
        }
    }

    /// The thread ids of real process `tgid`, sorted.
    fn real_tids(&self, tgid: u32) -> Result<Vec<u32>, Errno> {
        let errno = |e: nix::Error| Errno::from_i32(e as i32).unwrap_or(Errno::EIO);
        let mut dir = nix::dir::Dir::openat(
            &self.real_proc,
            format!("{tgid}/task").as_str(),
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(errno)?;
        let mut v: Vec<u32> = dir
            .iter()
            .filter_map(|e| e.ok())
            .filter_map(|e| name_to_int(e.file_name().to_bytes()))
            .filter(|&t| t != 0)
            .collect();
        v.sort_unstable();
        Ok(v)
    }

    /// The entries of a caller directory, `.` and `..` first.
    fn caller_listing(
        &self,
        tgid: u32,
        tid: u32,
        what: CallerWhat,
    ) -> Result<Vec<(Vec<u8>, u64, DType)>, Errno> {
        let me = Ino::Caller { tgid, tid, what };
        let mut v = vec![
            (b".".to_vec(), me.ino(), DType::Dir),
            (b"..".to_vec(), Node::Root.ino(), DType::Dir),
        ];
        match what {
            CallerWhat::Dir => {
                if tid == 0 {
                    let task = Ino::Caller {
                        tgid,
                        tid: 0,
                        what: CallerWhat::TaskDir,
                    };
                    v.push((b"task".to_vec(), task.ino(), DType::Dir));
                }
                for (i, f) in CALLER_FILES.iter().enumerate() {
                    let n = Ino::Caller {
                        tgid,
                        tid,
                        what: CallerWhat::File(i),
                    };
                    v.push((f.as_bytes().to_vec(), n.ino(), DType::Reg));
                }
            }
            CallerWhat::TaskDir => {
                for t in self.real_tids(tgid)? {
                    let n = Ino::Caller {
                        tgid,
                        tid: t,
                        what: CallerWhat::Dir,
                    };
                    v.push((t.to_string().into_bytes(), n.ino(), DType::Dir));
                }
            }
            CallerWhat::File(_) => return Err(Errno::ENOTDIR),
        }
        Ok(v)
    }

    fn render(&self, ino: Ino) -> Result<Vec<u8>, Errno> {
        match ino {
            Ino::Emu(Node::Pid {
                nr,
                entry: Some(e @ (PidEntry::Maps | PidEntry::Statm)),
            }) if matches!(self.kernel, Source::Live(_)) => match self.real_of(nr) {
                // The run's core does not see mmap: the real thread's.
                Some(real) => {
                    let file = if e == PidEntry::Maps { "maps" } else { "statm" };
                    self.read_real(&format!("{real}/{file}"))
                }
                None => self.with_fs(|fs| fs.read(Node::Pid { nr, entry: Some(e) }))?,
            },
            Ino::Emu(n) => self.with_fs(|fs| fs.read(n))?,
            Ino::Caller {
                tgid,
                tid,
                what: CallerWhat::File(i),
            } => {
                if tid == 0 {
                    self.read_real(&format!("{tgid}/{}", CALLER_FILES[i]))
                } else {
                    self.read_real(&format!("{tgid}/task/{tid}/{}", CALLER_FILES[i]))
                }
            }
            Ino::Caller { .. } => Err(Errno::EISDIR),
        }
    }
}

impl Filesystem for ProcFuse {
    fn lookup(&self, req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let r = Ino::from_ino(parent.0)
            .ok_or(Errno::ENOENT)
            .and_then(|p| self.do_lookup(req, p, name.as_bytes()))
            .and_then(|i| self.attr_of(i));
        match r {
            Ok(a) => reply.entry(&Duration::ZERO, &file_attr(&a), Generation(0)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match Ino::from_ino(ino.0)
            .ok_or(Errno::ENOENT)
            .and_then(|i| self.attr_of(i))
        {
            Ok(a) => reply.attr(&Duration::ZERO, &file_attr(&a)),
            Err(e) => reply.error(errno(e)),
        }
    }

    fn readlink(&self, req: &Request, ino: INodeNo, reply: ReplyData) {
        let (tgid, tid) = self.caller(req);
        match Ino::from_ino(ino.0) {
            Some(Ino::Emu(Node::SelfLink)) => reply.data(tgid.to_string().as_bytes()),
            Some(Ino::Emu(Node::ThreadSelfLink)) => {
                reply.data(format!("{tgid}/task/{tid}").as_bytes())
            }
            _ => reply.error(errno(Errno::EINVAL)),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match Ino::from_ino(ino.0)
            .ok_or(Errno::ENOENT)
            .and_then(|i| self.render(i))
        {
            Ok(data) => {
                let fh = self.new_fh();
                if let Ok(mut files) = self.files.lock() {
                    files.insert(fh, Arc::new(data));
                }
                reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
            }
            Err(e) => reply.error(errno(e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let data = self.files.lock().ok().and_then(|f| f.get(&fh.0).cloned());
        match data {
            Some(d) => {
                let start = (offset as usize).min(d.len());
                let end = start.saturating_add(size as usize).min(d.len());
                reply.data(&d[start..end]);
            }
            None => reply.error(errno(Errno::EBADF)),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        if let Ok(mut files) = self.files.lock() {
            files.remove(&fh.0);
        }
        reply.ok();
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        match Ino::from_ino(ino.0).map(|i| self.attr_of(i)) {
            Some(Ok(a)) if a.d_type == DType::Dir => {
                let fh = self.new_fh();
                if let Ok(mut dirs) = self.dirs.lock() {
                    dirs.insert(fh, DirCursor::default());
                }
                reply.opened(FileHandle(fh), FopenFlags::empty());
            }
            Some(Ok(_)) => reply.error(errno(Errno::ENOTDIR)),
            Some(Err(e)) => reply.error(errno(e)),
            None => reply.error(errno(Errno::ENOENT)),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let Some(node) = Ino::from_ino(ino.0) else {
            return reply.error(errno(Errno::ENOENT));
        };
        let stored = self.dirs.lock().ok().and_then(|d| d.get(&fh.0).copied());
        let mut cursor = match stored {
            Some(c) if c.pos == offset => c,
            _ => DirCursor::at(offset),
        };
        let mut got = DirEntries::with_limit(READDIR_BATCH);
        let r = match node {
            Ino::Emu(n) => self
                .with_fs(|fs| fs.readdir(n, &mut cursor, &mut got))
                .and_then(|r| r),
            Ino::Caller { tgid, tid, what } => self.caller_listing(tgid, tid, what).map(|list| {
                for (pos, (name, ino, t)) in list.into_iter().enumerate().skip(offset as usize) {
                    got.entries.push(taskcore::procfs::DirEntry {
                        name,
                        ino,
                        d_type: t,
                        pos: pos as u64,
                        next: pos as u64 + 1,
                    });
                }
                cursor.pos = got.entries.last().map_or(offset, |e| e.next);
            }),
        };
        if let Err(e) = r {
            return reply.error(errno(e));
        }
        for e in &got.entries {
            if reply.add(
                INodeNo(e.ino),
                e.next,
                kind(e.d_type),
                OsStr::from_bytes(&e.name),
            ) {
                // Full: the kernel asks again from this entry's position.
                cursor = DirCursor::at(e.pos);
                break;
            }
        }
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.insert(fh.0, cursor);
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        if let Ok(mut dirs) = self.dirs.lock() {
            dirs.remove(&fh.0);
        }
        reply.ok();
    }
}

/// A server of `kernel` whose clock reads `base_now_ns` now and whose boot
/// was at `boot_wall_s` (Unix seconds); the real `/proc` is opened here,
/// before anything is mounted over it.
fn server(kernel: Source, base_now_ns: u64, boot_wall_s: u64) -> Result<ProcFuse, String> {
    let real_proc = nix::fcntl::open(
        "/proc",
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| format!("open /proc: {e}"))?;
    Ok(ProcFuse {
        base_now_ns,
        kernel,
        started: Instant::now(),
        boot_wall_s,
        real_proc,
        next_fh: AtomicU64::new(1),
        files: Mutex::new(HashMap::new()),
        dirs: Mutex::new(HashMap::new()),
    })
}

/// The mount: read-only, no setuid, devices or exec, named
/// `taskcore-proc` in the mount table.
fn mount_config() -> fuser::Config {
    let mut config = fuser::Config::default();
    config.mount_options = vec![
        MountOption::FSName("taskcore-proc".to_string()),
        MountOption::Subtype("taskcore".to_string()),
        MountOption::RO,
        MountOption::NoSuid,
        MountOption::NoDev,
        MountOption::NoExec,
    ];
    config
}

/// Mounts the `/proc` of a live `taskcore run` (views published to `lv`)
/// at `dir`, readable by every user of the run (`allow_other`); unmounted
/// when the returned session is dropped.
pub(crate) fn mount_live(
    lv: Arc<taskcore_run::LiveView>,
    dir: &Path,
) -> Result<fuser::BackgroundSession, String> {
    // The core's clock starts with the run; its boot is now.
    let boot_wall_s = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let server = server(Source::Live(lv), 0, boot_wall_s)?;
    let mut config = mount_config();
    config.acl = fuser::SessionACL::All;
    fuser::spawn_mount(server, dir, &config).map_err(|e| format!("mount {}: {e}", dir.display()))
}

/// Mounts the emulated `/proc` of `loaded` at `dir`. With a `command`, runs
/// it while mounted, unmounts, and exits with its status; without, serves
/// until SIGINT, SIGTERM or SIGHUP. The caller has checked `dir` with
/// `guard::check_mount_point`.
pub(crate) fn mount(loaded: Loaded, dir: &Path, command: &[String]) -> Result<ExitCode, String> {
    let now = loaded.kernel.now_ns();
    let kernel = Source::Fixed(Box::new(RwLock::new(loaded.kernel)));
    let server = server(kernel, now, loaded.boot_wall_s)?;
    let config = mount_config();
    if command.is_empty() {
        // Block the stop signals in every thread (the FUSE threads inherit
        // the mask) and wait for one here.
        use nix::sys::signal::{SigSet, Signal};
        let mut set = SigSet::empty();
        for s in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            set.add(s);
        }
        set.thread_block()
            .map_err(|e| format!("sigprocmask: {e}"))?;
        let session = fuser::spawn_mount(server, dir, &config)
            .map_err(|e| format!("mount {}: {e}", dir.display()))?;
        eprintln!(
            "taskcore proc: serving {} (SIGINT, SIGTERM or SIGHUP to unmount)",
            dir.display()
        );
        let sig = set.wait().map_err(|e| format!("sigwait: {e}"))?;
        eprintln!("taskcore proc: {sig}, unmounting");
        drop(session);
        return Ok(ExitCode::SUCCESS);
    }
    let session = fuser::spawn_mount(server, dir, &config)
        .map_err(|e| format!("mount {}: {e}", dir.display()))?;
    let status = std::process::Command::new(&command[0])
        .args(&command[1..])
        .status();
    drop(session);
    match status {
        Ok(s) => Ok(ExitCode::from(s.code().unwrap_or(128).clamp(0, 255) as u8)),
        // A shell's statuses: 127 not found, 126 found but not runnable.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("taskcore proc: {}: command not found", command[0]);
            Ok(ExitCode::from(127))
        }
        Err(e) => {
            eprintln!("taskcore proc: {}: {e}", command[0]);
            Ok(ExitCode::from(126))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskcore::procfs::PidEntry;

    #[test]
    fn inode_numbers_round_trip_and_do_not_collide() {
        let mut all = vec![
            Ino::Emu(Node::Root),
            Ino::Emu(Node::SelfLink),
            Ino::Emu(Node::Pid {
                nr: 4_194_303,
                entry: Some(PidEntry::Maps),
            }),
            Ino::Emu(Node::Tid {
                nr: 7,
                entry: Some(PidEntry::Stat),
            }),
        ];
        for (tgid, tid) in [(1, 0), (4_194_303, 0), (300, 301), (4_194_303, 4_194_302)] {
            for what in [CallerWhat::Dir, CallerWhat::TaskDir]
                .into_iter()
                .chain((0..CALLER_FILES.len()).map(CallerWhat::File))
            {
                all.push(Ino::Caller { tgid, tid, what });
            }
        }
        let mut seen = std::collections::HashSet::new();
        for i in &all {
            assert_eq!(Ino::from_ino(i.ino()), Some(*i), "{i:?}");
            assert!(seen.insert(i.ino()), "collision for {i:?}");
        }
        assert!(Ino::Caller {
            tgid: 1,
            tid: 0,
            what: CallerWhat::TaskDir
        }
        .is_dir());
        assert!(!Ino::Caller {
            tgid: 1,
            tid: 0,
            what: CallerWhat::File(0)
        }
        .is_dir());
    }
}
