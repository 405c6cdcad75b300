//! Directory listing plumbing: where entries go ([`DirContext`]), where a
//! listing resumes ([`DirCursor`]), and the `getdents64` record format
//! ([`Getdents64`]).
//!
//! # Positions
//! Every entry has a position (`ctx->pos` when Linux emits it). A listing
//! call starts at a cursor position and returns the position to resume at:
//! the position of the first entry it did not return, or the end marker.
//! Like Linux's `filldir64`, [`Getdents64`] stores in each record's `d_off`
//! the position of the entry after it, so that `lseek(fd, d_off)` resumes
//! right after that record.
//!
//! ```text
//!  linux_dirent64, 8-byte aligned records:
//!  +--------+--------+----------+--------+-----------------+-----+
//!  | d_ino  | d_off  | d_reclen | d_type | d_name ... NUL  | pad |
//!  |  u64   |  i64   |   u16    |   u8   |                 |     |
//!  +--------+--------+----------+--------+-----------------+-----+
//!   0        8        16         18       19                reclen
//! ```
//!
//! # Linux
//! include/linux/fs.h `struct dir_context`, `dir_emit`, `dir_emit_dots`;
//! fs/readdir.c `filldir64`, `getdents64`.

/// Type of a directory entry (`d_type`).
///
/// # Linux
/// `DT_*` (include/linux/fs_types.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DType {
    /// `DT_DIR`: a directory.
    Dir = 4,
    /// `DT_REG`: a regular file.
    Reg = 8,
    /// `DT_LNK`: a symbolic link.
    Lnk = 10,
}

/// Receives the entries of a listing, one at a time, in position order.
///
/// # Linux
/// `struct dir_context` with its `actor`; [`DirContext::emit`] is
/// `dir_emit()`.
pub trait DirContext {
    /// Offers the entry `name` (inode `ino`, type `d_type`) at position
    /// `pos`. Returns `false` if it does not fit: the listing stops, and
    /// resumes at `pos` next time.
    fn emit(&mut self, name: &[u8], ino: u64, d_type: DType, pos: u64) -> bool;

    /// Called once when a listing call ends, with the position to resume
    /// at. [`Getdents64`] stores it in the last record's `d_off`.
    fn finish(&mut self, _end: u64) {}
}

/// Where a directory listing resumes: the file position, plus the thread
/// id Linux keeps as a hint for `/proc/PID/task` (`file->private_data`),
/// so that resuming there costs O(1) instead of a walk to the position.
///
/// Start at `DirCursor::default()` (position 0, no hint).
///
/// # Linux
/// `file->f_pos`; for task directories also the tid that
/// `proc_task_readdir()` stores in `file->private_data` when the buffer
/// fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirCursor {
    /// The position to resume at.
    pub pos: u64,
    /// The thread id the next task-directory listing starts with, 0 for
    /// none. Cleared by every listing call; ignored unless `pos > 2`.
    pub tid_hint: u32,
}

impl DirCursor {
    /// A cursor at position `pos` without hint (what `lseek` leaves).
    pub fn at(pos: u64) -> DirCursor {
        DirCursor { pos, tid_hint: 0 }
    }
}

/// Length of the fixed part of a `linux_dirent64` record, in bytes.
const DIRENT64_HEADER: usize = 19;

/// Records up to this length (names up to 12 bytes) take the fast path of
/// [`Getdents64`].
const SHORT_RECORD: usize = 32;

/// Record length of an entry named `name_len` bytes: header, name, NUL,
/// rounded up to 8 (`ALIGN(offsetof(.., d_name) + namlen + 1, 8)`).
pub fn dirent64_reclen(name_len: usize) -> usize {
    (DIRENT64_HEADER + name_len + 1 + 7) & !7
}

/// A `getdents64` buffer: [`DirContext`] writing `linux_dirent64` records
/// into a caller's byte slice.
///
/// # Linux
/// `struct getdents_callback64` and `filldir64()` (fs/readdir.c): each
/// record's `d_off` is the position of the entry after it.
#[derive(Debug)]
pub struct Getdents64<'b> {
    buf: &'b mut [u8],
    used: usize,
    /// Offset of the last record written, for its `d_off`.
    last: Option<usize>,
    /// Whether an entry was refused for lack of room.
    refused: bool,
}

impl<'b> Getdents64<'b> {
    /// An empty listing into `buf`.
    pub fn new(buf: &'b mut [u8]) -> Getdents64<'b> {
        Getdents64 {
            buf,
            used: 0,
            last: None,
            refused: false,
        }
    }

    /// Bytes of records written.
    pub fn len(&self) -> usize {
        self.used
    }

    /// Whether no record was written.
    pub fn is_empty(&self) -> bool {
        self.used == 0
    }

    /// Whether an entry was refused because the buffer was full (with
    /// nothing written, `getdents64` fails with `EINVAL`).
    pub fn refused(&self) -> bool {
        self.refused
    }

    fn set_d_off(&mut self, rec: usize, off: u64) {
        self.buf[rec + 8..rec + 16].copy_from_slice(&off.to_ne_bytes());
    }
}

impl DirContext for Getdents64<'_> {
    #[inline]
    fn emit(&mut self, name: &[u8], ino: u64, d_type: DType, pos: u64) -> bool {
        let reclen = dirent64_reclen(name.len());
        if self.buf.len() - self.used < reclen {
            self.refused = true;
            return false;
        }
        if let Some(prev) = self.last {
            self.set_d_off(prev, pos);
        }
        let r = self.used;
        if reclen <= SHORT_RECORD {
            // Most names (numbers, fixed entries) fit 32 bytes: build the
            // record in a fixed-size array so that no copy has a run-time
            // length (each would be a memmove call).
            // The name as a little-endian integer: a computed value, not a
            // byte loop that the compiler would turn into a memcpy call.
            let packed = name
                .iter()
                .rev()
                .fold(0u128, |acc, &c| (acc << 8) | u128::from(c));
            let mut rec = [0u8; SHORT_RECORD];
            rec[0..8].copy_from_slice(&ino.to_ne_bytes());
            rec[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
            rec[18] = d_type as u8;
            rec[DIRENT64_HEADER..]
                .copy_from_slice(&packed.to_le_bytes()[..SHORT_RECORD - DIRENT64_HEADER]);
            if reclen == SHORT_RECORD {
                if let Ok(dst) =
                    <&mut [u8; SHORT_RECORD]>::try_from(&mut self.buf[r..r + SHORT_RECORD])
                {
                    *dst = rec;
                }
            } else if let Ok(dst) = <&mut [u8; 24]>::try_from(&mut self.buf[r..r + 24]) {
                dst.copy_from_slice(&rec[..24]);
            }
        } else {
            let rec = &mut self.buf[r..r + reclen];
            rec[0..8].copy_from_slice(&ino.to_ne_bytes());
            rec[8..16].copy_from_slice(&0u64.to_ne_bytes());
            rec[16..18].copy_from_slice(&(reclen as u16).to_ne_bytes());
            rec[18] = d_type as u8;
            rec[DIRENT64_HEADER..DIRENT64_HEADER + name.len()].copy_from_slice(name);
            rec[DIRENT64_HEADER + name.len()..].fill(0);
        }
        self.last = Some(r);
        self.used += reclen;
        true
    }

    fn finish(&mut self, end: u64) {
        if let Some(prev) = self.last {
            self.set_d_off(prev, end);
        }
    }
}

/// One entry of a listing, as [`DirEntries`] collects it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The name.
    pub name: Vec<u8>,
    /// Inode number.
    pub ino: u64,
    /// Entry type.
    pub d_type: DType,
    /// Position of this entry.
    pub pos: u64,
    /// Position of the entry after it (`d_off`): where to resume after it.
    pub next: u64,
}

/// A [`DirContext`] collecting up to `limit` entries in a `Vec`.
#[derive(Clone, Debug, Default)]
pub struct DirEntries {
    /// The entries collected so far.
    pub entries: Vec<DirEntry>,
    /// Most entries to accept in one listing call (`usize::MAX` for all).
    pub limit: usize,
}

impl DirEntries {
    /// A collector accepting every entry.
    pub fn unlimited() -> DirEntries {
        DirEntries::with_limit(usize::MAX)
    }

    /// A collector accepting at most `limit` entries per listing call.
    pub fn with_limit(limit: usize) -> DirEntries {
        DirEntries {
            entries: Vec::new(),
            limit,
        }
    }
}

impl DirContext for DirEntries {
    fn emit(&mut self, name: &[u8], ino: u64, d_type: DType, pos: u64) -> bool {
        if self.entries.len() >= self.limit {
            return false;
        }
        if let Some(prev) = self.entries.last_mut() {
            prev.next = pos;
        }
        self.entries.push(DirEntry {
            name: name.to_vec(),
            ino,
            d_type,
            pos,
            next: pos,
        });
        true
    }

    fn finish(&mut self, end: u64) {
        if let Some(prev) = self.entries.last_mut() {
            prev.next = end;
        }
    }
}

/// One record decoded from a `getdents64` buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dirent64 {
    /// `d_ino`.
    pub ino: u64,
    /// `d_off`: where to resume after this record.
    pub off: u64,
    /// `d_type`.
    pub d_type: u8,
    /// `d_name` without its NUL.
    pub name: Vec<u8>,
}

/// Decodes the records of a `getdents64` buffer (the bytes a call
/// returned); stops at the first malformed record.
pub fn parse_dirents64(buf: &[u8]) -> Vec<Dirent64> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + DIRENT64_HEADER <= buf.len() {
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[at + i..at + i + 8]);
            u64::from_ne_bytes(b)
        };
        let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
        if reclen < DIRENT64_HEADER + 1 || at + reclen > buf.len() {
            break;
        }
        let name_area = &buf[at + DIRENT64_HEADER..at + reclen];
        let n = name_area
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(name_area.len());
        out.push(Dirent64 {
            ino: word(0),
            off: word(8),
            d_type: buf[at + 18],
            name: name_area[..n].to_vec(),
        });
        at += reclen;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_records_agree() {
        let mut buf = [0u8; 512];
        let mut g = Getdents64::new(&mut buf);
        let names: [&[u8]; 5] = [
            b"1",
            b"4194303",
            b"thread-self",
            b"exactly12byt",
            b"a-much-longer-name-here",
        ];
        for (i, n) in names.iter().enumerate() {
            assert!(g.emit(n, 100 + i as u64, DType::Reg, 10 + i as u64));
        }
        g.finish(99);
        let n = g.len();
        let recs = parse_dirents64(&buf[..n]);
        assert_eq!(recs.len(), 5);
        for (i, r) in recs.iter().enumerate() {
            assert_eq!(r.name, names[i]);
            assert_eq!(r.ino, 100 + i as u64);
            assert_eq!(r.off, if i == 4 { 99 } else { 11 + i as u64 });
        }
        assert_eq!(n, 24 + 32 + 32 + 32 + 48);
    }

    #[test]
    fn reclen_matches_linux() {
        // "." -> 24 bytes, "thread-self" -> 32, "pagetypeinfo" -> 32, as
        // getdents64 on a real /proc returns them.
        assert_eq!(dirent64_reclen(1), 24);
        assert_eq!(dirent64_reclen(4), 24);
        assert_eq!(dirent64_reclen(5), 32);
        assert_eq!(dirent64_reclen(11), 32);
        assert_eq!(dirent64_reclen(12), 32);
        assert_eq!(dirent64_reclen(13), 40);
    }

    #[test]
    fn d_off_is_the_next_position() {
        let mut buf = [0u8; 64];
        let mut g = Getdents64::new(&mut buf);
        assert!(g.emit(b"a", 7, DType::Reg, 10));
        assert!(g.emit(b"bc", 8, DType::Dir, 12));
        // Third does not fit: 48 + 24 > 64.
        assert!(!g.emit(b"d", 9, DType::Lnk, 15));
        g.finish(15);
        let n = g.len();
        let recs = parse_dirents64(&buf[..n]);
        assert_eq!(recs.len(), 2);
        assert_eq!((recs[0].ino, recs[0].off, recs[0].d_type), (7, 12, 8));
        assert_eq!(recs[0].name, b"a");
        assert_eq!((recs[1].ino, recs[1].off, recs[1].d_type), (8, 15, 4));
        assert_eq!(recs[1].name, b"bc");
    }

    #[test]
    fn collector_limits_and_links() {
        let mut d = DirEntries::with_limit(2);
        assert!(d.emit(b"x", 1, DType::Reg, 0));
        assert!(d.emit(b"y", 2, DType::Reg, 5));
        assert!(!d.emit(b"z", 3, DType::Reg, 9));
        d.finish(9);
        assert_eq!(d.entries[0].next, 5);
        assert_eq!(d.entries[1].next, 9);
    }
}
