//! `taskcore proc export DIR`: the emulated `/proc` written out as a
//! directory tree, for bind-mounting over `/proc` (`unshare -m`, then
//! `mount --bind DIR /proc`).
//!
//! `self` and `thread-self` point at the namespace's init (a static tree
//! cannot follow its reader). `ps` also needs an entry for its own real pid:
//! create `DIR/$$/stat` before the bind mount (see procfs-tools.md).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use taskcore::procfs::{DType, DirCursor, DirEntries, Node, ProcClock, ProcFs};
use taskcore::Kernel;

/// What an export wrote.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Written {
    pub(crate) dirs: u64,
    pub(crate) files: u64,
    pub(crate) links: u64,
    pub(crate) bytes: u64,
}

/// Makes `dir` ready for an export: created if missing; if it has
/// entries, an error unless `force`, which removes them.
pub(crate) fn prepare(dir: &Path, force: bool) -> Result<(), String> {
    let Ok(rd) = fs::read_dir(dir) else {
        return fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()));
    };
    let entries: Vec<_> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    if entries.is_empty() {
        return Ok(());
    }
    if !force {
        return Err(format!(
            "{}: not empty ({} entries); --force clears it first",
            dir.display(),
            entries.len()
        ));
    }
    // `--force` on a mistyped path must not empty the root or a live /proc.
    let canon = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    if canon == Path::new("/") || super::guard::is_procfs(&canon) {
        return Err(format!("refusing to empty {}", canon.display()));
    }
    for p in entries {
        let r = if p.is_dir() && !p.is_symlink() {
            fs::remove_dir_all(&p)
        } else {
            fs::remove_file(&p)
        };
        r.map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// Writes `dir/PID/stat`, a copy of the real `/proc/PID/stat`, for the
/// real process that will read the tree (procps looks its own pid up).
pub(crate) fn reader_entry(dir: &Path, pid: u32) -> Result<(), String> {
    let stat =
        fs::read(format!("/proc/{pid}/stat")).map_err(|e| format!("/proc/{pid}/stat: {e}"))?;
    let d = dir.join(pid.to_string());
    if d.exists() {
        // The emulated table has this pid too: keep the emulated entry.
        return Ok(());
    }
    fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    fs::write(d.join("stat"), stat).map_err(|e| format!("{}: {e}", d.display()))
}

/// Writes `kernel`'s root-namespace `/proc` under `dir` (created if
/// missing; existing entries are overwritten).
pub(crate) fn export(kernel: &Kernel, clock: ProcClock, dir: &Path) -> Result<Written, String> {
    let init = kernel
        .init_task()
        .map_err(|e| format!("no init task: {}", e.name()))?;
    let fs = ProcFs::new(kernel, kernel.root_ns(), clock)
        .and_then(|f| f.with_current(init))
        .map_err(|e| e.name().to_string())?;
    let mut w = Written::default();
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write_dir(&fs, Node::Root, dir, &mut w)?;
    Ok(w)
}

fn write_dir(fs: &ProcFs<'_>, node: Node, path: &Path, w: &mut Written) -> Result<(), String> {
    let mut cursor = DirCursor::default();
    let mut entries = DirEntries::unlimited();
    fs.readdir(node, &mut cursor, &mut entries)
        .map_err(|e| format!("{}: readdir: {}", path.display(), e.name()))?;
    for e in entries.entries {
        if e.name == b"." || e.name == b".." {
            continue;
        }
        let name = String::from_utf8_lossy(&e.name).into_owned();
        let target = path.join(&name);
        let child = fs
            .lookup(node, &e.name)
            .map_err(|err| format!("{}: lookup: {}", target.display(), err.name()))?;
        match e.d_type {
            DType::Dir => {
                fs::create_dir_all(&target)
                    .map_err(|err| format!("{}: {err}", target.display()))?;
                w.dirs += 1;
                write_dir(fs, child, &target, w)?;
            }
            DType::Reg => {
                let data = fs
                    .read(child)
                    .map_err(|err| format!("{}: read: {}", target.display(), err.name()))?;
                fs::write(&target, &data).map_err(|err| format!("{}: {err}", target.display()))?;
                w.files += 1;
                w.bytes += data.len() as u64;
            }
            DType::Lnk => {
                let link = fs
                    .readlink(child)
                    .map_err(|err| format!("{}: readlink: {}", target.display(), err.name()))?;
                let _ = fs::remove_file(&target);
                symlink(String::from_utf8_lossy(&link).as_ref(), &target)
                    .map_err(|err| format!("{}: {err}", target.display()))?;
                w.links += 1;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_writes_the_tree() {
        let k = crate::proc::source::generate(3, 2).unwrap();
        let dir = std::env::temp_dir().join(format!("taskcore-export-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let w = export(&k, ProcClock::from_kernel(&k, 1_700_000_000), &dir).unwrap();
        assert!(w.files > 0 && w.links == 2);
        let stat = fs::read_to_string(dir.join("3/stat")).unwrap();
        assert!(stat.starts_with("3 (worker) R 2 2 2 0 -1 "), "{stat}");
        let th = fs::read_to_string(dir.join("3/task/4/status")).unwrap();
        assert!(th.contains("\nPid:\t4\n"));
        assert_eq!(fs::read_link(dir.join("self")).unwrap(), Path::new("1"));
        assert!(!dir.join("4").exists(), "threads are not listed");
        let btime = fs::read_to_string(dir.join("stat")).unwrap();
        assert!(btime.contains("\nbtime 1700000000\n"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn force_refuses_to_empty_a_live_proc() {
        // (Not tested on "/": a broken guard would empty the machine.)
        let err = prepare(Path::new("/proc"), true).unwrap_err();
        assert!(err.contains("refusing"), "{err}");
        let link =
            std::env::temp_dir().join(format!("taskcore-export-link-{}", std::process::id()));
        let _ = fs::remove_file(&link);
        symlink("/proc", &link).unwrap();
        let err = prepare(&link, true).unwrap_err();
        assert!(err.contains("refusing"), "{err}");
        fs::remove_file(&link).unwrap();
    }
}
