//! `/proc/PID/task/TID/children`: the children of one thread.
//!
//! # Linux
//! fs/proc/array.c `children_seq_show()` over `get_children_pid()`: the
//! thread's `children` list in order (creation, then adoption at the
//! tail), each child's pid in the mount's namespace followed by a space
//! (`"%d "`, 0 for a child with no number there), no newline.

use crate::ix::TaskIx;
use crate::list;
use crate::procfs::fs::ProcFs;
use crate::procfs::seq::SeqBuf;

impl ProcFs<'_> {
    /// Renders `children_seq_show()` for thread `t`.
    pub(crate) fn render_children(&self, t: TaskIx) -> Vec<u8> {
        let k = self.k;
        let mut m = SeqBuf::new();
        for g in list::collect(k.tasks[t].children, &k.groups, |g| &g.sibling) {
            let leader = k.groups[g].leader;
            m.put_decimal_ull("", u64::from(self.nr(k.tasks[leader].pid)));
            m.putc(b' ');
        }
        m.into_bytes()
    }
}
