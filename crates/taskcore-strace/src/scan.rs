//! The top-level structure of strace's argument notation: where its
//! strings, `/* ... */` comments and `()`, `[]`, `{}` brackets are, so that
//! separators and operators are found only outside them.
//!
//! ```text
//!   split_scan   a list's pieces at a top-level separator (`,` or `|`),
//!                each with its Top
//!   Top          one value's top-level `=>`, `|`, `<<`, the bracket that
//!                closes its first one, and whether it holds a comment
//!   matching_close, strip_comments, trim
//! ```
//!
//! Every scan passes over the bytes it does not act on in a tight loop
//! ([`skip_plain`]). Complexity: linear in the text, each.
//!
//! No Linux analogue: this follows strace's printers' notation (`print_*`
//! in strace's `src/`).

use std::borrow::Cow;

/// Splits `s` at every top-level `sep` byte: outside quotes, comments and
/// `()`, `[]`, `{}` nesting. Pieces are trimmed; an empty input gives no
/// pieces, and a trailing empty piece (as in `"-1, "`) is dropped.
///
/// Unbalanced closers are treated as plain text, so this never fails.
#[cfg(test)]
pub(crate) fn split_top(s: &str, sep: u8) -> Vec<&str> {
    split_scan(s, sep).into_iter().map(|(p, _)| p).collect()
}

/// Splits `s` at every top-level `sep` byte (as `split_top`), with each
/// piece's [`Top`] (what [`Top::scan`] finds in it) found in the same
/// pass: a piece begins at depth 0, so its top level is the text's.
pub(crate) fn split_scan(s: &str, sep: u8) -> Vec<(&str, Top)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    // The current piece's structure, at positions in `s`.
    let mut top = Top::default();
    let mut i = 0;
    debug_assert!(SPECIAL[usize::from(sep)]);
    let piece = |start: usize, end: usize, top: Top| {
        let raw = &s[start..end];
        let t = trim(raw);
        let lead = if t.len() == raw.len() {
            0
        } else {
            raw.len() - raw.trim_start().len()
        };
        (t, top.moved(start + lead))
    };
    let mut lv = Level::default();
    loop {
        i = skip_plain(b, i);
        if i >= b.len() {
            break;
        }
        match lv.step(b, i, &mut top) {
            Ok(next) => i = next,
            Err(c) if c == sep && lv.depth == 0 => {
                out.push(piece(start, i, top));
                start = i + 1;
                top = Top::default();
                lv.opened = false;
                i += 1;
            }
            Err(c) => {
                top.note(b, i, c, lv.depth);
                i += 1;
            }
        }
    }
    let last = piece(start, b.len(), top);
    if !last.0.is_empty() || !out.is_empty() {
        out.push(last);
    }
    while out.last().is_some_and(|p| p.0.is_empty()) {
        out.pop();
    }
    out
}

/// The bytes the scans below act on: quotes, comment starts, brackets,
/// and the separators and operators they look for; any other byte is
/// passed over by [`skip_plain`] without being matched.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = b"\"/()[]{},|=<";
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// The index of the first byte at or after `i` that is in [`SPECIAL`]
/// (`b.len()` if none).
fn skip_plain(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && !SPECIAL[usize::from(b[i])] {
        i += 1;
    }
    i
}

/// Index just past the string literal starting at `b[i] == b'"'` (or the
/// end of input if it is unterminated).
pub(crate) fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Index just past the `/* ... */` comment starting at `i`.
fn skip_comment(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j + 1 < b.len() {
        if b[j] == b'*' && b[j + 1] == b'/' {
            return j + 2;
        }
        j += 1;
    }
    b.len()
}

/// Index of the bracket closing the one opening at `b[open]`, if any,
/// skipping strings and comments.
pub(crate) fn matching_close(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    loop {
        i = skip_plain(b, i);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => {
                i = skip_string(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = skip_comment(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Removes top-level `/* ... */` comments from `s` (returning a new string
/// only when there was one).
pub(crate) fn strip_comments(s: &str) -> Cow<'_, str> {
    if !s.contains("/*") {
        return s.into();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                out.push_str(&s[last..i]);
                i = skip_comment(b, i);
                last = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&s[last..]);
    out.trim().to_string().into()
}

/// The top-level structure of one value's text, found in one pass (the
/// decisions of `args::value_at` read it instead of scanning once each).
/// "Top-level" means outside strings, comments and brackets, as in
/// [`split_scan`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Top {
    /// Byte index of the first top-level `=>`.
    pub(crate) arrow: Option<usize>,
    /// Whether a top-level `|` occurs.
    pub(crate) bar: bool,
    /// Byte index of the first top-level `<<`.
    pub(crate) shl: Option<usize>,
    /// Byte index of the bracket closing the first bracket opened (what
    /// [`matching_close`] finds from it).
    pub(crate) close: Option<usize>,
    /// Whether a `/* ... */` comment occurs (at any depth).
    pub(crate) comment: bool,
}

/// The nesting state of one scan: the bracket depth, and whether a bracket
/// was opened since the scan (or its piece) began.
#[derive(Default)]
struct Level {
    depth: usize,
    opened: bool,
}

impl Level {
    /// Passes over the token at `b[i]` when it is a string, a comment or a
    /// bracket, noting in `top` a comment and the bracket that closes the
    /// first one opened: the index after it. `Err(c)`: byte `c` is
    /// something else (an operator or a separator), at depth `self.depth`.
    #[inline(always)]
    fn step(&mut self, b: &[u8], i: usize, top: &mut Top) -> Result<usize, u8> {
        match b[i] {
            b'"' => Ok(skip_string(b, i)),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                top.comment = true;
                Ok(skip_comment(b, i))
            }
            b'(' | b'[' | b'{' => {
                self.depth += 1;
                self.opened = true;
                Ok(i + 1)
            }
            b')' | b']' | b'}' => {
                if self.depth == 1 && self.opened && top.close.is_none() {
                    top.close = Some(i);
                }
                self.depth = self.depth.saturating_sub(1);
                Ok(i + 1)
            }
            c => Err(c),
        }
    }
}

impl Top {
    /// Scans `s` once. Linear in its length.
    pub(crate) fn scan(s: &str) -> Top {
        let b = s.as_bytes();
        let mut top = Top::default();
        let mut lv = Level::default();
        let mut i = 0;
        loop {
            i = skip_plain(b, i);
            if i >= b.len() {
                break;
            }
            match lv.step(b, i, &mut top) {
                Ok(next) => i = next,
                Err(c) => {
                    top.note(b, i, c, lv.depth);
                    i += 1;
                }
            }
        }
        top
    }

    /// Notes the operator byte `c` at `b[i]`, at bracket depth `depth`.
    fn note(&mut self, b: &[u8], i: usize, c: u8, depth: usize) {
        if depth != 0 {
            return;
        }
        match c {
            b'|' => self.bar = true,
            b'=' if self.arrow.is_none() && b.get(i + 1) == Some(&b'>') => self.arrow = Some(i),
            b'<' if self.shl.is_none() && b.get(i + 1) == Some(&b'<') => self.shl = Some(i),
            _ => {}
        }
    }

    /// The same structure at positions `from` earlier (a piece found at
    /// `from` in a larger text; nothing is noted before it).
    fn moved(self, from: usize) -> Top {
        let at = |p: Option<usize>| p.map(|p| p - from);
        Top {
            arrow: at(self.arrow),
            shl: at(self.shl),
            close: at(self.close),
            ..self
        }
    }

    /// The structure of the text's tail from byte `from` on, when this
    /// tells it: nothing before `from` but text without brackets, `|` or
    /// comments (the `key=` of a field). `None` when a noted position
    /// lies before `from`.
    pub(crate) fn tail(self, from: usize) -> Option<Top> {
        let before = |p: Option<usize>| p.is_some_and(|p| p < from);
        if before(self.arrow) || before(self.shl) || before(self.close) {
            return None;
        }
        Some(self.moved(from))
    }
}

/// `s` without leading and trailing whitespace, as [`str::trim`]; the
/// usual piece, which starts and ends with a visible ASCII byte, is
/// returned without decoding any character.
pub(crate) fn trim(s: &str) -> &str {
    let visible = |c: Option<&u8>| c.is_some_and(|&c| c > b' ' && c < 0x80);
    let b = s.as_bytes();
    if visible(b.first()) && visible(b.last()) {
        s
    } else {
        s.trim()
    }
}

/// Byte index of the first top-level occurrence of `pat` in `s` (the
/// reference [`Top::scan`] is tested against).
#[cfg(test)]
fn find_top(s: &str, pat: &str) -> Option<usize> {
    let b = s.as_bytes();
    let p = pat.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = skip_string(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ if depth == 0 && b[i..].starts_with(p) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_top_handles_nesting_quotes_and_trailing_separators() {
        assert_eq!(split_top("-1,  ", b','), vec!["-1"]);
        assert_eq!(split_top("", b','), Vec::<&str>::new());
        assert_eq!(
            split_top("a, {b, c}, [d, e], \"f,g\", h(i, j)", b','),
            vec!["a", "{b, c}", "[d, e]", "\"f,g\"", "h(i, j)"]
        );
        assert_eq!(
            split_top("a /* x, y */, b", b','),
            vec!["a /* x, y */", "b"]
        );
        // Unbalanced text never panics.
        assert_eq!(split_top("a)], b", b','), vec!["a)]", "b"]);
        assert_eq!(split_top("\"unterminated, x", b',').len(), 1);
    }

    proptest::proptest! {
        /// One pass finds what the separate scans find: the first
        /// top-level `=>` and `<<`, a top-level `|`, and the bracket
        /// closing one that opens the text (comments are stripped before
        /// [`Top`] is read, so the text here has none).
        #[test]
        fn one_scan_finds_what_each_scan_finds(s in r#"[a=<>|(){}\[\]" ,\\/*]{0,24}"#) {
            proptest::prop_assume!(!s.contains("/*"));
            let top = Top::scan(&s);
            proptest::prop_assert_eq!(top.arrow, find_top(&s, "=>"));
            proptest::prop_assert_eq!(top.shl, find_top(&s, "<<"));
            proptest::prop_assert_eq!(top.bar, find_top(&s, "|").is_some());
            proptest::prop_assert!(!top.comment);
            if s.starts_with(['(', '[', '{']) {
                proptest::prop_assert_eq!(top.close, matching_close(s.as_bytes(), 0));
            }
        }

        /// Each piece of a split comes with what a scan of the piece
        /// alone finds, for either separator.
        #[test]
        fn split_pieces_carry_their_scan(s in r#"[a=<>|(){}\[\]" ,\\/*]{0,24}"#, bar in proptest::bool::ANY) {
            let sep = if bar { b'|' } else { b',' };
            for (piece, top) in split_scan(&s, sep) {
                proptest::prop_assert_eq!(top, Top::scan(piece), "{:?} in {:?}", piece, s);
            }
        }

        /// The structure after a `key=` is what a scan of it finds,
        /// whenever the whole text's structure tells it.
        #[test]
        fn a_tail_carries_its_scan(v in r#"[a=<>|(){}\[\]" ,\\/*]{0,20}"#) {
            let s = format!("k={v}");
            let s = trim(&s);
            let rest = &s[2..];
            let t = trim(rest);
            if let Some(top) = Top::scan(s).tail(2 + rest.len() - t.len()) {
                proptest::prop_assert_eq!(top, Top::scan(t));
            }
        }

        /// The fast trim is `str::trim`.
        #[test]
        fn trim_is_str_trim(s in "[ \t\n\x0b\x0c\r\x1c\x1fa\u{85}\u{a0}\u{2003}é]{0,6}") {
            proptest::prop_assert_eq!(trim(&s), s.trim());
        }
    }
}
