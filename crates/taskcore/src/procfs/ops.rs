//! The file-system operations on [`Node`]s: lookup, attributes, listing,
//! reading, link targets, and path resolution.
//!
//! # Errors
//! As Linux's procfs returns them:
//! - `ENOENT`: no such name; a pid node whose task is gone (Linux's
//!   `pid_revalidate` drops the dentry, and the lookup finds nothing);
//!   `self`/`thread-self` read by a task outside the mount's namespace (or
//!   by no emulated task).
//! - `ESRCH`: reading a file of a task that is gone (`proc_single_show`).
//! - `ENOTDIR`: lookup or listing in a file; `EISDIR`: reading a
//!   directory; `EINVAL`: `readlink` of something that is not a link.
//!
//! # Linux
//! fs/proc/root.c `proc_root_lookup()`, fs/proc/base.c
//! `proc_pid_lookup()`, `proc_pident_lookup()`, `proc_task_lookup()`,
//! `pid_getattr()`, `proc_task_getattr()`, fs/proc/self.c,
//! fs/proc/thread_self.c, fs/proc/util.c `name_to_int()`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::procfs::dirent::{DirContext, DirCursor, Getdents64};
use crate::procfs::fs::ProcFs;
use crate::procfs::node::{s_ifmt, Attr, Fixed, Node, PidEntry, TGID_ENTRIES, TID_ENTRIES};
use crate::procfs::root::{RootWalk, ROOT_FIXED};
#[cfg(doc)]
use crate::task::kernel::Kernel;
use crate::task::ptrace::access::PtraceMode;

/// The number a directory name stands for: decimal digits without a
/// leading zero (except "0"), below `u32::MAX / 10`; `None` otherwise.
///
/// # Linux
/// `name_to_int()` (fs/proc/util.c), which returns `~0U` for `None`.
pub fn name_to_int(name: &[u8]) -> Option<u32> {
    if name.is_empty() || (name.len() > 1 && name[0] == b'0') {
        return None;
    }
    let mut n: u32 = 0;
    for &c in name {
        let d = c.wrapping_sub(b'0');
        if d > 9 || n >= (u32::MAX - 9) / 10 {
            return None;
        }
        n = n * 10 + u32::from(d);
    }
    Some(n)
}

impl ProcFs<'_> {
    /// `ptrace_may_access(t, PTRACE_MODE_READ_FSCREDS)` for the reader; a
    /// reader outside the emulated table is treated as permitted.
    pub(crate) fn permitted(&self, t: TaskIx) -> bool {
        self.current
            .is_none_or(|cur| self.k.may_access(cur, t, PtraceMode::ReadFsCreds))
    }

    /// `mm_access(t, PTRACE_MODE_READ_FSCREDS)` succeeds: `t` has no
    /// address space, shares the reader's, or [`ProcFs::permitted`].
    fn may_read_mm(&self, t: TaskIx) -> bool {
        self.k.tasks[t].mm.is_gone()
            || self.current.is_some_and(|cur| self.k.shares_mm(cur, t))
            || self.permitted(t)
    }

    /// The task a pid node names, if it still exists in the mount's
    /// namespace.
    fn node_task(&self, node: Node) -> Option<TaskIx> {
        match node {
            Node::Pid { nr, .. } | Node::Tid { nr, .. } => self.find_task(nr),
            _ => None,
        }
    }

    /// Looks `name` up in directory `parent`.
    ///
    /// # Errors
    /// `ENOENT` if there is no such entry or `parent` is a pid node whose
    /// task is gone; `ENOTDIR` if `parent` is not a directory.
    ///
    /// # Linux
    /// `proc_root_lookup()`, `proc_pident_lookup()`, `proc_task_lookup()`:
    /// any thread can be looked up at the root under its thread id (only
    /// thread-group leaders are listed), and `task/TID` only for a thread
    /// of the same group.
    pub fn lookup(&self, parent: Node, name: &[u8]) -> Result<Node> {
        if !parent.is_dir() {
            return Err(Errno::ENOTDIR);
        }
        match parent {
            Node::Root => {
                match name {
                    b"self" => return Ok(Node::SelfLink),
                    b"thread-self" => return Ok(Node::ThreadSelfLink),
                    _ => {}
                }
                if let Some(&f) = ROOT_FIXED.iter().find(|f| f.name().as_bytes() == name) {
                    return Ok(Node::Fixed(f));
                }
                let nr = name_to_int(name).ok_or(Errno::ENOENT)?;
                self.find_task(nr).ok_or(Errno::ENOENT)?;
                Ok(Node::Pid { nr, entry: None })
            }
            Node::Fixed(_) => Fixed::ALL
                .iter()
                .find(|f| f.parent() == parent && f.name().as_bytes() == name)
                .map(|&f| Node::Fixed(f))
                .ok_or(Errno::ENOENT),
            Node::Pid { nr, entry: None } => {
                self.find_task(nr).ok_or(Errno::ENOENT)?;
                let e = PidEntry::find(&TGID_ENTRIES, name).ok_or(Errno::ENOENT)?;
                Ok(Node::Pid { nr, entry: Some(e) })
            }
            Node::Pid {
                nr,
                entry: Some(PidEntry::Task),
            } => {
                let t = self.find_task(nr).ok_or(Errno::ENOENT)?;
                let tid = name_to_int(name).ok_or(Errno::ENOENT)?;
                let th = self.find_task(tid).ok_or(Errno::ENOENT)?;
                if !self.k.same_group(Some(t), Some(th)) {
                    return Err(Errno::ENOENT);
                }
                Ok(Node::Tid {
                    nr: tid,
                    entry: None,
                })
            }
            Node::Tid { nr, entry: None } => {
                self.find_task(nr).ok_or(Errno::ENOENT)?;
                let e = PidEntry::find(&TID_ENTRIES, name).ok_or(Errno::ENOENT)?;
                Ok(Node::Tid { nr, entry: Some(e) })
            }
            _ => Err(Errno::ENOTDIR),
        }
    }

    /// The directory holding `node` (the root for the root).
    pub fn parent(&self, node: Node) -> Node {
        match node {
            Node::Root | Node::SelfLink | Node::ThreadSelfLink => Node::Root,
            Node::Fixed(f) => f.parent(),
            Node::Pid { entry: None, .. } => Node::Root,
            Node::Pid { nr, entry: Some(_) } => Node::Pid { nr, entry: None },
            Node::Tid { entry: None, .. } => {
                let leader = self.node_task(node).map_or(0, |t| self.tgid_nr(t));
                Node::Pid {
                    nr: leader,
                    entry: Some(PidEntry::Task),
                }
            }
            Node::Tid { nr, entry: Some(_) } => Node::Tid { nr, entry: None },
        }
    }

    /// What `stat(2)` shows of `node`.
    ///
    /// # Errors
    /// `ENOENT` for a pid node whose task is gone.
    ///
    /// # Linux
    /// `proc_root_getattr()` (`nlink` counts the processes),
    /// `pid_getattr()` (owner: `task_dump_owner()`, the task's effective
    /// ids, or root's for the files of a process that is not dumpable),
    /// `proc_task_getattr()` (`nlink` counts the threads).
    pub fn getattr(&self, node: Node) -> Result<Attr> {
        let task = match node {
            Node::Pid { .. } | Node::Tid { .. } => Some(self.node_task(node).ok_or(Errno::ENOENT)?),
            _ => None,
        };
        let nlink = match node {
            Node::Root => 3 + self.k.nr_processes() as u32,
            Node::Fixed(Fixed::Sys) => 3,
            Node::Fixed(f) if f.is_dir() => 2,
            Node::Pid { entry: None, .. } => 3,
            Node::Pid {
                entry: Some(PidEntry::Task),
                ..
            } => 2 + task.map_or(0, |t| self.k.groups[self.k.tasks[t].group].nr_threads),
            Node::Tid { entry: None, .. } => 2,
            _ => 1,
        };
        // task_dump_owner(): the task's effective ids; for anything but a
        // 0555 directory, root's while the process is not dumpable or has
        // no address space (a zombie).
        let mode = s_ifmt(node.d_type()) | node.perm();
        let (uid, gid) = match task {
            Some(t) => {
                let task = &self.k.tasks[t];
                let dir = mode == s_ifmt(crate::procfs::dirent::DType::Dir) | 0o555;
                let dumpable = self.k.mm_dumpable(task.mm);
                if dir || dumpable {
                    (task.cred.euid, task.cred.egid)
                } else {
                    (0, 0)
                }
            }
            None => (0, 0),
        };
        Ok(Attr {
            ino: node.ino(),
            mode,
            nlink,
            uid,
            gid,
            size: 0,
            d_type: node.d_type(),
        })
    }

    /// Lists directory `node` from `cursor` into `ctx`, advancing the
    /// cursor; a call ends when `ctx` refuses an entry or the directory is
    /// exhausted.
    ///
    /// Costs O(entries returned) for the root (see [`crate::procfs`]).
    ///
    /// # Errors
    /// `ENOTDIR` if `node` is not a directory; `ENOENT` for a pid directory
    /// whose task is gone.
    ///
    /// # Linux
    /// `iterate_shared` of the proc directories: `proc_root_readdir()`,
    /// `proc_tgid_base_readdir()`, `proc_task_readdir()`,
    /// `proc_tid_base_readdir()`.
    pub fn readdir<C: DirContext + ?Sized>(
        &self,
        node: Node,
        cursor: &mut DirCursor,
        ctx: &mut C,
    ) -> Result<()> {
        if !node.is_dir() {
            return Err(Errno::ENOTDIR);
        }
        match node {
            Node::Root => self.root_readdir(cursor, ctx, RootWalk::Tagged),
            Node::Fixed(f) => self.fixed_readdir(f, cursor, ctx),
            Node::Pid { nr, entry } => {
                let t = self.node_task(node).ok_or(Errno::ENOENT)?;
                match entry {
                    None => self.pident_readdir(t, nr, false, cursor, ctx),
                    Some(_) => self.task_readdir(t, nr, cursor, ctx),
                }
            }
            Node::Tid { nr, .. } => {
                let t = self.node_task(node).ok_or(Errno::ENOENT)?;
                self.pident_readdir(t, nr, true, cursor, ctx);
            }
            Node::SelfLink | Node::ThreadSelfLink => return Err(Errno::ENOTDIR),
        }
        Ok(())
    }

    /// Lists the root with a chosen thread-group walk: [`RootWalk::Tagged`]
    /// is what [`ProcFs::readdir`] does; [`RootWalk::EveryPid`] is Linux
    /// mainline's walk over every pid, kept for comparison.
    ///
    /// # Linux
    /// `proc_root_readdir()`.
    pub fn readdir_root<C: DirContext + ?Sized>(
        &self,
        cursor: &mut DirCursor,
        ctx: &mut C,
        walk: RootWalk,
    ) {
        self.root_readdir(cursor, ctx, walk);
    }

    /// `getdents64(fd, buf, buf.len())` on directory `node` open at
    /// `cursor`: fills `buf` with `linux_dirent64` records and returns the
    /// bytes written, 0 at the end of the directory.
    ///
    /// # Errors
    /// As [`ProcFs::readdir`]; `EINVAL` if `buf` cannot hold the next
    /// entry (`getdents64` with a too small buffer).
    ///
    /// # Linux
    /// `getdents64()` (fs/readdir.c) over `iterate_dir()`.
    pub fn getdents64(&self, node: Node, cursor: &mut DirCursor, buf: &mut [u8]) -> Result<usize> {
        let mut g = Getdents64::new(buf);
        self.readdir(node, cursor, &mut g)?;
        if g.is_empty() && g.refused() {
            // The first entry did not fit: "result buffer is too small".
            return Err(Errno::EINVAL);
        }
        Ok(g.len())
    }

    /// The contents of file `node`.
    ///
    /// # Errors
    /// `EISDIR` for a directory; `EINVAL` for a link; `ESRCH` for a file of
    /// a task that is gone; `EIO` if the address space cannot be rendered;
    /// `EACCES` for `maps` of another address space when the reader may
    /// not access the task ([`Kernel::ptrace_may_access`] in
    /// [`PtraceMode::ReadFsCreds`](crate::PtraceMode::ReadFsCreds)).
    ///
    /// # Linux
    /// `proc_single_show()` and the per-file show functions; `maps` opens
    /// through `proc_mem_open()`/`mm_access()`
    /// (tests/oracle/ptrace_access.c).
    pub fn read(&self, node: Node) -> Result<Vec<u8>> {
        match node {
            Node::Root | Node::Fixed(Fixed::Sys | Fixed::SysKernel) => Err(Errno::EISDIR),
            Node::SelfLink | Node::ThreadSelfLink => Err(Errno::EINVAL),
            Node::Fixed(f) => Ok(match f {
                Fixed::Stat => self.render_kstat(),
                Fixed::Uptime => self.render_uptime(),
                Fixed::Cpuinfo => self.render_cpuinfo(),
                Fixed::Loadavg => self.render_loadavg(),
                Fixed::Meminfo => self.render_meminfo(),
                Fixed::PidMax => self.render_pid_max(),
                Fixed::Sys | Fixed::SysKernel => return Err(Errno::EISDIR),
            }),
            Node::Pid { entry: None, .. }
            | Node::Tid { entry: None, .. }
            | Node::Pid {
                entry: Some(PidEntry::Task),
                ..
            } => Err(Errno::EISDIR),
            Node::Pid { entry: Some(e), .. } | Node::Tid { entry: Some(e), .. } => {
                let whole = matches!(node, Node::Pid { .. });
                let t = self.node_task(node).ok_or(Errno::ESRCH)?;
                Ok(match e {
                    PidEntry::Status => self.render_status(t),
                    PidEntry::Stat => self.render_stat(t, whole),
                    PidEntry::Statm => self.render_statm(t),
                    PidEntry::Cmdline => self.render_cmdline(t),
                    PidEntry::Comm => self.render_comm(t),
                    PidEntry::Maps => {
                        if !self.may_read_mm(t) {
                            return Err(Errno::EACCES);
                        }
                        self.render_maps(t)?
                    }
                    PidEntry::Limits => self.render_limits(t),
                    PidEntry::Children => self.render_children(t),
                    PidEntry::UidMap | PidEntry::GidMap => {
                        let which = if e == PidEntry::UidMap {
                            crate::task::userns::IdMapFile::Uid
                        } else {
                            crate::task::userns::IdMapFile::Gid
                        };
                        let ns = self.k.tasks[t].cred.user_ns.0;
                        let text = self.k.render_id_map(self.reader_user_ns(), ns, which);
                        text.into_bytes()
                    }
                    PidEntry::Setgroups => {
                        let ns = self.k.tasks[t].cred.user_ns.0;
                        self.k.setgroups_text(ns).as_bytes().to_vec()
                    }
                    PidEntry::Task => return Err(Errno::EISDIR),
                })
            }
        }
    }

    /// The target of link `node`: `self` is the reader's tgid,
    /// `thread-self` is `TGID/task/TID`, as the mount's namespace numbers
    /// them.
    ///
    /// # Errors
    /// `EINVAL` if `node` is not a link; `ENOENT` if the reader is not an
    /// emulated task visible in the mount's namespace.
    ///
    /// # Linux
    /// `proc_self_get_link()` (fs/proc/self.c),
    /// `proc_thread_self_get_link()` (fs/proc/thread_self.c).
    pub fn readlink(&self, node: Node) -> Result<Vec<u8>> {
        let cur = match node {
            Node::SelfLink | Node::ThreadSelfLink => self.current_visible().ok_or(Errno::ENOENT)?,
            _ => return Err(Errno::EINVAL),
        };
        let tgid = self.tgid_nr(cur);
        Ok(match node {
            Node::SelfLink => tgid.to_string().into_bytes(),
            _ => format!("{}/task/{}", tgid, self.tid_nr(cur)).into_bytes(),
        })
    }

    /// Resolves `path`, relative to the mount's root (a leading `/` is
    /// ignored), following `self` and `thread-self` everywhere but in the
    /// last component, and `..` to the parent.
    ///
    /// # Errors
    /// As [`ProcFs::lookup`] and [`ProcFs::readlink`] for each component.
    ///
    /// # Examples
    /// ```
    /// use taskcore::procfs::{Node, PidEntry, ProcClock, ProcFs};
    /// use taskcore::{Config, Kernel};
    ///
    /// let k = Kernel::new(Config::default())?;
    /// let fs = ProcFs::new(&k, k.root_ns(), ProcClock::default())?;
    /// let n = fs.resolve(b"/1/stat")?;
    /// assert_eq!(n, Node::Pid { nr: 1, entry: Some(PidEntry::Stat) });
    /// assert!(fs.read(n)?.starts_with(b"1 (init) S 0 1 1 0 -1 "));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn resolve(&self, path: &[u8]) -> Result<Node> {
        self.resolve_depth(path, 0)
    }

    fn resolve_depth(&self, path: &[u8], depth: u32) -> Result<Node> {
        // Links here point inside /proc and nest at most once.
        if depth > 2 {
            return Err(Errno::ENOENT);
        }
        let comps: Vec<&[u8]> = path
            .split(|&b| b == b'/')
            .filter(|c| !c.is_empty() && *c != b".")
            .collect();
        let mut node = Node::Root;
        for (i, c) in comps.iter().enumerate() {
            if *c == b".." {
                node = self.parent(node);
                continue;
            }
            node = self.lookup(node, c)?;
            if matches!(node, Node::SelfLink | Node::ThreadSelfLink) && i + 1 < comps.len() {
                let target = self.readlink(node)?;
                node = self.resolve_depth(&target, depth + 1)?;
            }
        }
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    use super::name_to_int;

    #[test]
    fn name_to_int_follows_linux() {
        assert_eq!(name_to_int(b"0"), Some(0));
        assert_eq!(name_to_int(b"42"), Some(42));
        assert_eq!(name_to_int(b"042"), None);
        assert_eq!(name_to_int(b"4a"), None);
        assert_eq!(name_to_int(b""), None);
        // Linux refuses to take a digit once the value reaches
        // (UINT_MAX - 9) / 10.
        assert_eq!(name_to_int(b"429496729"), Some(429_496_729));
        assert_eq!(name_to_int(b"4294967280"), None);
        assert_eq!(name_to_int(b"4294967279"), Some(4_294_967_279));
    }
}
