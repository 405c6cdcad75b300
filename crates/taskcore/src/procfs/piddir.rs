//! Process and thread directories: the listing of `/proc/PID/` and
//! `/proc/PID/task/TID/`, and of `/proc/PID/task/` (the threads).
//!
//! # `/proc/PID/task/` positions
//! `.` at 0, `..` at 1, then the threads in thread-list order (creation
//! order, the leader first) at 2, 3, ... Like Linux, a call that fills its
//! buffer leaves the thread id it could not return in the cursor's
//! `tid_hint`; the next call restarts from that thread in O(1) if it is
//! still in the group, else walks the list to the position (O(position)).
//! A thread that exits between two calls can thus shift the positions of
//! later ones: Linux makes no stronger promise for this directory.
//!
//! # Linux
//! fs/proc/base.c `proc_pident_readdir()` (`tgid_base_stuff`,
//! `tid_base_stuff`), `proc_task_readdir()`, `first_tid()`, `next_tid()`.

use crate::ix::TaskIx;
use crate::procfs::dirent::{DType, DirContext, DirCursor};
use crate::procfs::fs::ProcFs;
use crate::procfs::node::{Node, PidEntry, TGID_ENTRIES, TID_ENTRIES};
use crate::procfs::root::{decimal, emit_list};

impl ProcFs<'_> {
    /// Lists the entries of process directory `/proc/NR` (`thread` false)
    /// or thread directory `/proc/PID/task/NR` (`thread` true).
    ///
    /// # Linux
    /// `proc_tgid_base_readdir()` / `proc_tid_base_readdir()`.
    pub(crate) fn pident_readdir<C: DirContext + ?Sized>(
        &self,
        t: TaskIx,
        nr: u32,
        thread: bool,
        cursor: &mut DirCursor,
        ctx: &mut C,
    ) {
        let (me, parent, table): (Node, Node, &[PidEntry]) = if thread {
            let leader_nr = self.tgid_nr(t);
            (
                Node::Tid { nr, entry: None },
                Node::Pid {
                    nr: leader_nr,
                    entry: Some(PidEntry::Task),
                },
                &TID_ENTRIES,
            )
        } else {
            (Node::Pid { nr, entry: None }, Node::Root, &TGID_ENTRIES)
        };
        let entries = table.iter().map(|&e| {
            let n = match me {
                Node::Tid { nr, .. } => Node::Tid { nr, entry: Some(e) },
                _ => Node::Pid { nr, entry: Some(e) },
            };
            (e.name().as_bytes(), n.ino(), e.d_type())
        });
        cursor.tid_hint = 0;
        cursor.pos = emit_list(cursor.pos, ctx, me.ino(), parent.ino(), entries);
        ctx.finish(cursor.pos);
    }

    /// `first_tid()`: the thread to list at task-directory position
    /// `cursor.pos` of task `t`'s group, using the cursor's hint.
    fn first_tid(&self, t: TaskIx, cursor: &DirCursor) -> Option<TaskIx> {
        let nr = cursor.pos - 2;
        if cursor.tid_hint != 0 && nr != 0 {
            if let Some(pos) = self.find_task(cursor.tid_hint) {
                if self.k.same_group(Some(pos), Some(t)) {
                    return Some(pos);
                }
            }
        }
        let g = self.k.tasks[t].group;
        if nr >= u64::from(self.k.groups[g].nr_threads) {
            return None;
        }
        let mut cur = self.k.groups[g].threads.first;
        for _ in 0..nr {
            cur = cur.and_then(|c| self.k.tasks[c].thread_node.next);
        }
        cur
    }

    /// Lists `/proc/NR/task/` of task `t`: its group's threads.
    ///
    /// # Linux
    /// `proc_task_readdir()`.
    pub(crate) fn task_readdir<C: DirContext + ?Sized>(
        &self,
        t: TaskIx,
        nr: u32,
        cursor: &mut DirCursor,
        ctx: &mut C,
    ) {
        let me = Node::Pid {
            nr,
            entry: Some(PidEntry::Task),
        };
        let parent = Node::Pid { nr, entry: None };
        if cursor.pos < 2 {
            let p = emit_list(cursor.pos, ctx, me.ino(), parent.ino(), core::iter::empty());
            cursor.pos = p;
            if p < 2 {
                cursor.tid_hint = 0;
                ctx.finish(p);
                return;
            }
        }
        let mut next = self.first_tid(t, cursor);
        cursor.tid_hint = 0;
        let mut name = [0u8; 10];
        while let Some(cur) = next {
            let tid = self.tid_nr(cur);
            if tid != 0 {
                let node = Node::Tid {
                    nr: tid,
                    entry: None,
                };
                if !ctx.emit(decimal(tid, &mut name), node.ino(), DType::Dir, cursor.pos) {
                    // Returning this thread failed: start there next time.
                    cursor.tid_hint = tid;
                    break;
                }
            }
            next = self.k.tasks[cur].thread_node.next;
            cursor.pos += 1;
        }
        ctx.finish(cursor.pos);
    }
}
