//! `/proc/PID/maps`: rendering and parsing, byte for byte.
//!
//! # Format
//! One line per VMA (proc(5)):
//!
//! ```text
//! 00400000-00b6f000 r--p 00000000 fe:00 247580                             /usr/bin/node
//! 0565d000-05689000 rw-p 00000000 00:00 0
//! ^start   ^end     ^perms ^offset ^dev ^inode  (padding to column 73)  ^name
//! ```
//!
//! `%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu ` then, when there is a name,
//! spaces up to column 72, one more space, and the name. Lines without a
//! name end with the space after the inode. The fourth permission letter
//! is `s` for `VM_MAYSHARE`, else `p`. The offset is `pgoff << PAGE_SHIFT`
//! for file mappings and 0 otherwise.
//!
//! # Linux
//! `show_map_vma()`, `show_vma_header_prefix()` and `get_vma_name()` in
//! `fs/proc/task_mmu.c`; the padding is `seq_setwidth(m, 25 +
//! sizeof(void *) * 6 - 1)` then `seq_pad(m, ' ')` (`fs/seq_file.c`).

use core::fmt::{self, Write};

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::{FileId, Vma, VmaName};

/// Column the name is padded to, before the separating space
/// (`25 + sizeof(void *) * 6 - 1` on 64-bit).
const NAME_PAD: usize = 72;

/// A line of a maps file that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, lowercase.
    pub msg: &'static str,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

/// A writer that counts the bytes written through it.
struct Counting<'a, W: Write + ?Sized> {
    w: &'a mut W,
    n: usize,
}

impl<W: Write + ?Sized> Write for Counting<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.n += s.len();
        self.w.write_str(s)
    }
}

/// Writes one maps line for `v` (with its stored name) to `w`.
///
/// # Errors
/// Only those of `w`.
///
/// # Linux
/// Mirrors `show_map_vma()`.
pub fn render_vma<W: Write + ?Sized>(w: &mut W, v: &Vma) -> fmt::Result {
    let mut c = Counting { w, n: 0 };
    let (major, minor, inode, off) = match v.file {
        Some(f) => (f.major, f.minor, f.inode, v.pgoff << PAGE_SHIFT),
        None => (0, 0, 0, 0),
    };
    let flag = |bit: u32, ch: char| if v.prot & bit != 0 { ch } else { '-' };
    write!(
        c,
        "{:08x}-{:08x} {}{}{}{} {:08x} {:02x}:{:02x} {} ",
        v.start,
        v.end,
        flag(PROT_READ, 'r'),
        flag(PROT_WRITE, 'w'),
        flag(PROT_EXEC, 'x'),
        if v.flags & VM_MAYSHARE != 0 { 's' } else { 'p' },
        off,
        major,
        minor,
        inode
    )?;
    if v.name != VmaName::None {
        // seq_pad(m, ' '): pad to the width, then one separating space.
        for _ in c.n..NAME_PAD {
            c.write_char(' ')?;
        }
        write!(c, " {}", v.name)?;
    }
    c.write_char('\n')
}

/// Writes maps lines for `vmas`, in the order given.
///
/// # Errors
/// Only those of `w`.
pub fn render_maps<'a, W: Write + ?Sized>(
    w: &mut W,
    vmas: impl IntoIterator<Item = &'a Vma>,
) -> fmt::Result {
    for v in vmas {
        render_vma(w, v)?;
    }
    Ok(())
}

impl MmStruct {
    /// Writes this address space's `/proc/PID/maps` to `w`.
    ///
    /// # Errors
    /// Only those of `w`.
    ///
    /// # Linux
    /// Mirrors `proc_pid_maps_operations` (`m_start`/`m_next`/`show_map`):
    /// the VMAs in order, then the gate VMA.
    pub fn render_maps<W: Write + ?Sized>(&self, w: &mut W) -> fmt::Result {
        for v in self.maps_vmas() {
            render_vma(w, &v)?;
        }
        Ok(())
    }
}

fn hex(s: &str, line: usize, what: &'static str) -> Result<u64, ParseError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ParseError { line, msg: what });
    }
    u64::from_str_radix(s, 16).map_err(|_| ParseError { line, msg: what })
}

/// Parses one maps line (without its newline).
///
/// Attributes Linux does not show are inferred: `VM_MAY*` always;
/// `VM_SHARED | VM_MAYSHARE` for `s`; `VM_ACCOUNT` for private writable
/// memory (as if mapped without `MAP_NORESERVE`); `VM_GROWSDOWN` for
/// `[stack]`; `VM_DONTEXPAND` for special names; anonymous `pgoff` is
/// `start >> PAGE_SHIFT`. A VMA has a [`FileId`] when its device, inode
/// or offset is non-zero or its name is a path.
///
/// # Errors
/// A [`ParseError`] for `line` naming the first bad field.
pub fn parse_vma(text: &str, line: usize) -> Result<Vma, ParseError> {
    let err = |msg| ParseError { line, msg };
    let mut rest = text;
    let mut field = |what: &'static str| -> Result<&str, ParseError> {
        let (f, r) = rest.split_once(' ').ok_or(err(what))?;
        rest = r;
        Ok(f)
    };
    let range = field("missing address range")?;
    let perms = field("missing permissions")?;
    let offset = field("missing offset")?;
    let dev = field("missing device")?;
    let inode_s = field("missing inode")?;
    let name = rest.trim_start_matches(' ');

    let (s, e) = range.split_once('-').ok_or(err("bad address range"))?;
    let start = hex(s, line, "bad start address")?;
    let end = hex(e, line, "bad end address")?;
    if start >= end || !page_aligned(start) || !page_aligned(end) {
        return Err(err("bad address range"));
    }
    let p = perms.as_bytes();
    if p.len() != 4 {
        return Err(err("bad permissions"));
    }
    let bit = |c: u8, want: u8, v: u32| match c {
        b'-' => Ok(0),
        c if c == want => Ok(v),
        _ => Err(err("bad permissions")),
    };
    let prot =
        bit(p[0], b'r', PROT_READ)? | bit(p[1], b'w', PROT_WRITE)? | bit(p[2], b'x', PROT_EXEC)?;
    let shared = match p[3] {
        b's' => true,
        b'p' => false,
        _ => return Err(err("bad permissions")),
    };
    let off = hex(offset, line, "bad offset")?;
    if !page_aligned(off) {
        return Err(err("unaligned offset"));
    }
    let (maj, min) = dev.split_once(':').ok_or(err("bad device"))?;
    let major = u32::try_from(hex(maj, line, "bad device")?).map_err(|_| err("bad device"))?;
    let minor = u32::try_from(hex(min, line, "bad device")?).map_err(|_| err("bad device"))?;
    if inode_s.is_empty() || !inode_s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err("bad inode"));
    }
    let inode: u64 = inode_s.parse().map_err(|_| err("bad inode"))?;
    let name = VmaName::parse(name);

    let mut flags = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
    if shared {
        flags |= VM_SHARED | VM_MAYSHARE;
    } else if prot & PROT_WRITE != 0 {
        flags |= VM_ACCOUNT;
    }
    if name == VmaName::Stack {
        flags |= VM_GROWSDOWN;
    }
    if name.is_special() {
        flags |= VM_DONTEXPAND;
    }
    let has_file =
        major != 0 || minor != 0 || inode != 0 || off != 0 || matches!(name, VmaName::Path(_));
    let (file, pgoff) = if has_file {
        (
            Some(FileId {
                major,
                minor,
                inode,
            }),
            off >> PAGE_SHIFT,
        )
    } else {
        (None, start >> PAGE_SHIFT)
    };
    Ok(Vma {
        start,
        end,
        prot,
        flags,
        file,
        pgoff,
        name,
        anon_vma: None,
    })
}

/// Parses a whole `/proc/PID/maps` text into VMAs, in file order.
///
/// Rendering the result with [`render_maps`] gives back the text byte for
/// byte when it came from Linux (lines end in `\n`, padding as Linux
/// writes it).
///
/// # Examples
/// ```
/// use taskcore::mm::{parse_maps, render_maps, VmaName};
/// let text = "7ffe813aa000-7ffe813cb000 rw-p 00000000 00:00 0                          [stack]\n";
/// let vmas = parse_maps(text).unwrap();
/// assert_eq!(vmas[0].name, VmaName::Stack);
/// let mut out = String::new();
/// render_maps(&mut out, &vmas).unwrap();
/// assert_eq!(out, text);
/// ```
///
/// # Errors
/// The first line that does not parse ([`parse_vma`]).
pub fn parse_maps(text: &str) -> Result<Vec<Vma>, ParseError> {
    // Lines end at '\n' only: a file name may end with '\r' (Linux escapes
    // only '\n' in the path, `seq_file_path(m, file, "\n")`).
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .filter(|_| !text.is_empty())
        .enumerate()
        .map(|(i, l)| parse_vma(l, i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(v: &[Vma]) -> String {
        let mut s = String::new();
        render_maps(&mut s, v).unwrap();
        s
    }

    #[test]
    fn a_name_ending_in_cr_round_trips() {
        // Found by the `maps` fuzz target.
        let v = parse_maps("00000000-00001000 r--p 00000000 fe:00 314792 /x\r").unwrap();
        let text = render(&v);
        assert!(text.ends_with("/x\r\n"), "{text:?}");
        assert_eq!(parse_maps(&text).unwrap(), v);
    }

    #[test]
    fn pads_names_to_column_73() {
        let text = "7ffe813aa000-7ffe813cb000 rw-p 00000000 00:00 0                          [stack]\n\
                    ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n\
                    0565d000-05689000 rw-p 00000000 00:00 0 \n\
                    7f8819486000-7f8819487000 r--p 00002000 fe:00 326732                     /usr/lib/x86_64-linux-gnu/libpthread.so.0\n";
        let v = parse_maps(text).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[0].name, VmaName::Stack);
        assert_eq!(
            v[3].file,
            Some(FileId {
                major: 0xfe,
                minor: 0,
                inode: 326732
            })
        );
        assert_eq!(v[3].pgoff, 2);
        assert_eq!(render(&v), text);
        let line = text.lines().next().unwrap();
        assert_eq!(line.find('[').unwrap(), NAME_PAD + 1);
    }

    #[test]
    fn long_prefix_gets_one_space() {
        let v = Vma {
            file: Some(FileId {
                major: 0xfff,
                minor: 0xfffff,
                inode: u64::MAX,
            }),
            pgoff: 0xffff_ffff,
            name: VmaName::Path("/x".into()),
            ..Vma::anon(0xffff_ffff_f000_0000, 0xffff_ffff_f000_1000, PROT_READ)
        };
        let s = render(std::slice::from_ref(&v));
        // Past the pad width, the separating space follows the inode's.
        assert!(s.ends_with(" 18446744073709551615  /x\n"), "{s}");
        assert_eq!(parse_maps(&s).unwrap(), vec![v]);
    }

    #[test]
    fn errors_name_the_line() {
        for (text, line) in [
            ("00400000-00401000 r--p 00000000 00:00 0 \nzz\n", 2),
            ("00401000-00400000 r--p 00000000 00:00 0 \n", 1),
            ("00400000-00401000 rxxp 00000000 00:00 0 \n", 1),
            ("00400000-00401000 r--p 00000001 00:00 0 \n", 1),
            ("00400000-00401000 r--p 00000000 0000 0 \n", 1),
            ("00400000-00401000 r--p 00000000 00:00 x \n", 1),
            ("00400000-00401001 r--p 00000000 00:00 0 \n", 1),
        ] {
            assert_eq!(parse_maps(text).unwrap_err().line, line, "{text}");
        }
        assert_eq!(parse_maps("").unwrap(), vec![]);
    }
}
