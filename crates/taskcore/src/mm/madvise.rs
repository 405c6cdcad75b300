//! `madvise(MADV_DONTNEED)`: drops the pages of a range; the VMAs stay as
//! they are (no split, no merge), so `/proc/PID/maps` does not change.

use crate::errno::{Errno, Result};
use crate::mm::flags::{page_align, page_aligned};
use crate::mm::mm_struct::MmStruct;

impl MmStruct {
    /// `madvise(start, len, MADV_DONTNEED)`. The core keeps no page
    /// contents, so only the result is modelled.
    ///
    /// # Errors
    /// - `EINVAL`: `start` not page-aligned, or `start + len` wraps;
    /// - `ENOMEM`: part of the range is not mapped (Linux still advises the
    ///   mapped parts, `unmapped_error`).
    ///
    /// # Linux
    /// `do_madvise()` with `madvise_walk_vmas()` (mm/madvise.c).
    pub fn madvise_dontneed(&mut self, start: u64, len: u64) -> Result<()> {
        if !page_aligned(start) {
            return Err(Errno::EINVAL);
        }
        let len = page_align(len);
        if len == 0 {
            return Ok(());
        }
        let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
        let mut at = start;
        for v in self.iter() {
            if v.end <= at {
                continue;
            }
            if v.start >= end {
                break;
            }
            if v.start > at {
                return Err(Errno::ENOMEM);
            }
            at = v.end;
            if at >= end {
                return Ok(());
            }
        }
        Err(Errno::ENOMEM)
    }
}
