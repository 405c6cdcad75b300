//! Argument decoding: strace's printed argument text to a [`Value`] tree.
//!
//! strace prints arguments in a small C-like notation. This module parses
//! any of it without knowing the syscall, and never fails: whatever it does
//! not recognise is kept verbatim as [`Value::Raw`].
//!
//! ```text
//!   42  -1  0x7ffd  0755          Value::Int (decimal, hex, octal)
//!   3</dev/null>                  Value::Int (fd with a -y path annotation)
//!   "abc"  "abc"...               Value::Str (escapes decoded, truncation kept)
//!   NULL  SIG_DFL  AT_FDCWD       Value::Sym
//!   CLONE_VM|SIGCHLD  21<<26      Value::Or / Value::Shl
//!   [a, b, ...]  [CHLD TERM]      Value::Array (comma or space separated)
//!   ~[RTMIN RT_1]                 Value::NotSet (complemented signal set)
//!   {k=v, k2=v2, ...}             Value::Struct
//!   k=v                           Value::Named (clone()'s named arguments)
//!   a => b                        Value::Changed (clone3's entry => exit)
//!   makedev(0x1, 0x3)             Value::Call
//!   0x7ffd /* 35 vars */          comments are dropped
//!   WIFEXITED(s) && ...           Value::Raw (anything else, verbatim)
//! ```
//!
//! Complexity: [`parse_value`] is linear in the text per nesting level
//! (one scan of each level, [`super::scan`]), O(n * depth) overall;
//! strace nests at most 4 deep.
//!
//! No Linux analogue: this mirrors strace's printers (`print_*` in strace's
//! `src/`), not kernel code.

use std::borrow::Cow;

use super::scan::{skip_string, split_scan, strip_comments, trim, Top};

/// One argument value as strace printed it. Its names and verbatim texts
/// borrow the line's text (`'a`); a value whose text held a comment owns
/// them (the text without the comment exists only while it is parsed).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value<'a> {
    /// An integer: decimal, `0x` hex or `0` octal, possibly negative; wide
    /// enough for any u64 address and any i64.
    Int(i128),
    /// A quoted string with escapes decoded (bytes that are not UTF-8 are
    /// replaced); `truncated` when strace appended `...` (its `-s` limit).
    Str {
        /// The decoded text.
        text: String,
        /// Whether strace cut the string short.
        truncated: bool,
    },
    /// A bare symbol: `NULL`, `SIG_DFL`, `P_ALL`, `WNOHANG`, ...
    Sym(Cow<'a, str>),
    /// `A|B|0x10`: an OR of flags and numbers.
    Or(Vec<Value<'a>>),
    /// `A<<B`: a shifted constant, as in `21<<MAP_HUGE_SHIFT`.
    Shl(Box<Value<'a>>, Box<Value<'a>>),
    /// `[a, b]` or `[A B]`; `more` when the list ended with `...`.
    Array {
        /// The elements.
        items: Vec<Value<'a>>,
        /// Whether strace elided further elements.
        more: bool,
    },
    /// `~[A B]`: a signal set printed as the complement of its elements.
    NotSet(Vec<Value<'a>>),
    /// `{k=v, ...}`; a field without `k=` has key `None`.
    Struct {
        /// The fields in printed order.
        fields: Vec<(Option<Cow<'a, str>>, Value<'a>)>,
        /// Whether strace elided further fields with `...`.
        more: bool,
    },
    /// `key=value` outside braces (clone()'s `flags=...`).
    Named(Cow<'a, str>, Box<Value<'a>>),
    /// `entry => exit`: a value strace printed on entry and again on exit.
    Changed(Box<Value<'a>>, Box<Value<'a>>),
    /// `name(args)`, e.g. `makedev(0x1, 0x3)`.
    Call(Cow<'a, str>, Vec<Value<'a>>),
    /// Anything else, verbatim (trimmed).
    Raw(Cow<'a, str>),
}

impl Value<'_> {
    /// The same value owning all its text.
    fn into_owned(self) -> Value<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        let all = |v: Vec<Value<'_>>| v.into_iter().map(Value::into_owned).collect();
        let boxed = |v: Box<Value<'_>>| Box::new(v.into_owned());
        match self {
            Value::Int(n) => Value::Int(n),
            Value::Str { text, truncated } => Value::Str { text, truncated },
            Value::Sym(s) => Value::Sym(own(s)),
            Value::Or(v) => Value::Or(all(v)),
            Value::Shl(a, b) => Value::Shl(boxed(a), boxed(b)),
            Value::Array { items, more } => Value::Array {
                items: all(items),
                more,
            },
            Value::NotSet(v) => Value::NotSet(all(v)),
            Value::Struct { fields, more } => Value::Struct {
                fields: fields
                    .into_iter()
                    .map(|(k, v)| (k.map(own), v.into_owned()))
                    .collect(),
                more,
            },
            Value::Named(k, v) => Value::Named(own(k), boxed(v)),
            Value::Changed(a, b) => Value::Changed(boxed(a), boxed(b)),
            Value::Call(name, v) => Value::Call(own(name), all(v)),
            Value::Raw(s) => Value::Raw(own(s)),
        }
    }
}

impl<'a> Value<'a> {
    /// The integer value, if this is an [`Value::Int`].
    pub(crate) fn int(&self) -> Option<i128> {
        match self {
            Value::Int(n) => Some(*n),
            _ => None,
        }
    }

    /// The value as an `i32` (pids, signal numbers, exit codes); hex values
    /// up to `0xffffffff` wrap as C's `int` would.
    pub(crate) fn as_i32(&self) -> Option<i32> {
        let n = self.int()?;
        if let Ok(v) = i32::try_from(n) {
            Some(v)
        } else if (0..=u32::MAX as i128).contains(&n) {
            Some(n as u32 as i32)
        } else {
            None
        }
    }

    /// The value as a `u64` (addresses, lengths, flag words); negative values
    /// wrap as C's `unsigned long` would.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        let n = self.int()?;
        if let Ok(v) = u64::try_from(n) {
            Some(v)
        } else {
            i64::try_from(n).ok().map(|v| v as u64)
        }
    }

    /// `true` for the symbol `NULL`.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Value::Sym(s) if s == "NULL")
    }

    /// The value with any [`Value::Named`] wrapper removed.
    pub(crate) fn unnamed(&self) -> &Value<'a> {
        match self {
            Value::Named(_, v) => v,
            v => v,
        }
    }

    /// The field `key` of a [`Value::Struct`].
    pub(crate) fn field(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Struct { fields, .. } => fields
                .iter()
                .find(|(k, _)| k.as_deref() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Evaluates a flag expression (`A|B|0x10`, a single symbol or number,
    /// `21<<SHIFT`) with `lookup` resolving symbols.
    ///
    /// # Errors
    /// A message naming the first symbol `lookup` does not know, or the
    /// first value that is not a flag expression.
    pub(crate) fn eval_bits(&self, lookup: &dyn Fn(&str) -> Option<u64>) -> Result<u64, String> {
        match self {
            Value::Int(_) => self
                .as_u64()
                .ok_or_else(|| format!("number out of range: {self}")),
            Value::Sym(s) => lookup(s).ok_or_else(|| format!("unknown constant {s}")),
            Value::Or(parts) => parts
                .iter()
                .try_fold(0u64, |acc, p| Ok(acc | p.eval_bits(lookup)?)),
            Value::Shl(a, b) => {
                let (a, b) = (a.eval_bits(lookup)?, b.eval_bits(lookup)?);
                a.checked_shl(u32::try_from(b).map_err(|_| "shift too large".to_string())?)
                    .ok_or_else(|| "shift too large".to_string())
            }
            Value::Named(_, v) => v.eval_bits(lookup),
            other => Err(format!("not a flag expression: {other}")),
        }
    }
}

/// Parses a whole argument list (the text between a syscall's parentheses)
/// into one [`Value`] per top-level comma-separated argument.
#[cfg(test)]
pub(crate) fn parse_args(s: &str) -> Vec<Value<'_>> {
    args_at(s, 0)
}

fn args_at(s: &str, depth: usize) -> Vec<Value<'_>> {
    split_scan(s, b',')
        .into_iter()
        .map(|(a, top)| value_top(a, top, depth))
        .collect()
}

/// Splits an argument list (the text between a syscall's parentheses) at
/// its top-level commas: the trimmed pieces, and each one's [`Value`].
pub(crate) fn parse_list(s: &str) -> (Vec<&str>, Vec<Value<'_>>) {
    let pieces = split_scan(s, b',');
    let raw = pieces.iter().map(|p| p.0).collect();
    let vals = pieces
        .into_iter()
        .map(|(p, top)| value_top(p, top, 0))
        .collect();
    (raw, vals)
}

/// Nesting deeper than this is kept as [`Value::Raw`] text: strace nests
/// at most about 4 deep, and a bound keeps hostile input from exhausting
/// the stack (and the quadratic cost of deep nesting).
pub(crate) const MAX_DEPTH: usize = 16;

/// Parses one argument. Never fails: unrecognised text is [`Value::Raw`].
pub(crate) fn parse_value(s: &str) -> Value<'_> {
    value_at(s, 0)
}

fn value_at(s: &str, depth: usize) -> Value<'_> {
    let s = trim(s);
    if depth > MAX_DEPTH {
        return Value::Raw(s.into());
    }
    value_top(s, Top::scan(s), depth)
}

/// As [`value_at`] for the trimmed text `s` whose structure is `top`.
fn value_top(s: &str, top: Top, depth: usize) -> Value<'_> {
    if depth > MAX_DEPTH {
        return Value::Raw(s.into());
    }
    if top.comment {
        let stripped = strip_comments(s);
        return shaped(&stripped, Top::scan(&stripped), depth + 1).into_owned();
    }
    shaped(s, top, depth + 1)
}

/// Parses the value after the `key=` that ends at byte `key_end` of the
/// trimmed text `s` whose structure is `top`.
fn value_after(s: &str, top: Top, key_end: usize, depth: usize) -> Value<'_> {
    let rest = &s[key_end..];
    let v = trim(rest);
    // `s` is trimmed: what `trim` removed from `rest` is at its start.
    match top.tail(key_end + rest.len() - v.len()) {
        Some(top) => value_top(v, top, depth),
        None => value_at(v, depth),
    }
}

/// Parses the trimmed text `s` whose structure is `top`, its parts at
/// nesting `depth`.
fn shaped(s: &str, top: Top, depth: usize) -> Value<'_> {
    let parse_value = |t| value_at(t, depth);
    let parse_args = |t| args_at(t, depth);
    let parse_array = |t| array_at(t, depth);
    let parse_struct = |t| struct_at(t, depth);
    if s.is_empty() {
        return Value::Raw("".into());
    }
    if let Some(i) = top.arrow {
        return Value::Changed(
            Box::new(parse_value(&s[..i])),
            Box::new(parse_value(&s[i + 2..])),
        );
    }
    let b = s.as_bytes();
    let ident_len = ident_len(b);
    if ident_len > 0 && b.get(ident_len) == Some(&b'=') && b.get(ident_len + 1) != Some(&b'=') {
        // `key=value`: the value may itself be an OR (`flags=A|B`).
        return Value::Named(
            s[..ident_len].into(),
            Box::new(value_after(s, top, ident_len + 1, depth)),
        );
    }
    let parts = if top.bar {
        split_scan(s, b'|')
    } else {
        Vec::new()
    };
    if parts.len() > 1 {
        if parts.iter().any(|p| p.0.is_empty()) {
            return Value::Raw(s.into()); // `||` belongs to an expression
        }
        return Value::Or(
            parts
                .into_iter()
                .map(|(p, top)| value_top(p, top, depth))
                .collect(),
        );
    }
    if let Some(i) = top.shl {
        let (a, b) = (trim(&s[..i]), trim(&s[i + 2..]));
        if !a.is_empty() && !b.is_empty() && !b.starts_with('<') {
            return Value::Shl(Box::new(parse_value(a)), Box::new(parse_value(b)));
        }
    }
    match b[0] {
        b'~' if b.get(1) == Some(&b'[') => {
            if let Value::Array { items, .. } = parse_value(&s[1..]) {
                return Value::NotSet(items);
            }
        }
        b'[' if top.close == Some(b.len() - 1) => return parse_array(&s[1..s.len() - 1]),
        b'{' if top.close == Some(b.len() - 1) => return parse_struct(&s[1..s.len() - 1]),
        b'"' => {
            if let Some(v) = parse_string(s) {
                return v;
            }
        }
        _ => {}
    }
    if let Some(n) = parse_int(s) {
        return Value::Int(n);
    }
    if ident_len == b.len() {
        return Value::Sym(s.into());
    }
    if ident_len > 0 {
        match b[ident_len] {
            // The identifier's `(` is the first bracket.
            b'(' if top.close == Some(b.len() - 1) => {
                return Value::Call(
                    s[..ident_len].into(),
                    parse_args(&s[ident_len + 1..s.len() - 1]),
                );
            }
            _ => {}
        }
    }
    Value::Raw(s.into())
}

/// Length of the C identifier at the start of `b` (0 if none).
fn ident_len(b: &[u8]) -> usize {
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return 0;
    }
    b.iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count()
}

/// Parses the inside of `[...]`.
fn array_at(inner: &str, depth: usize) -> Value<'_> {
    let mut pieces = split_scan(inner, b',');
    // A signal set prints as `[INT QUIT]`: space separated, no commas.
    if pieces.len() == 1 && pieces[0].0.contains(' ') {
        let words: Vec<&str> = pieces[0].0.split_whitespace().collect();
        if words
            .iter()
            .all(|w| ident_len(w.as_bytes()) == w.len() || w.bytes().all(|c| c.is_ascii_digit()))
        {
            // Identifiers and numbers: nothing a scan would note.
            return Value::Array {
                items: words
                    .into_iter()
                    .map(|w| value_top(w, Top::default(), depth))
                    .collect(),
                more: false,
            };
        }
    }
    let more = pieces.last().is_some_and(|p| p.0 == "...");
    if more {
        pieces.pop();
    }
    Value::Array {
        items: pieces
            .into_iter()
            .map(|(p, top)| value_top(p, top, depth))
            .collect(),
        more,
    }
}

/// Parses the inside of `{...}`.
fn struct_at(inner: &str, depth: usize) -> Value<'_> {
    let mut fields = Vec::new();
    let mut more = false;
    for (piece, top) in split_scan(inner, b',') {
        if piece == "..." {
            more = true;
            continue;
        }
        let b = piece.as_bytes();
        let n = ident_len(b);
        if n > 0 && b.get(n) == Some(&b'=') && b.get(n + 1) != Some(&b'=') {
            fields.push((
                Some(piece[..n].into()),
                value_after(piece, top, n + 1, depth),
            ));
        } else {
            fields.push((None, value_top(piece, top, depth)));
        }
    }
    Value::Struct { fields, more }
}

/// Parses an integer, accepting a trailing `-y` path annotation (`3</x>`).
fn parse_int(s: &str) -> Option<i128> {
    let s = match s.find('<') {
        Some(i) if s.ends_with('>') && i > 0 => &s[..i],
        _ => s,
    };
    let (neg, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if body.is_empty() {
        return None;
    }
    let v = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        i128::from_str_radix(hex, 16).ok()?
    } else if !body.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    } else if body.len() > 1 && body.starts_with('0') {
        i128::from_str_radix(body, 8).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Parses `"..."` optionally followed by `...`; `None` if anything else
/// follows the closing quote.
fn parse_string(s: &str) -> Option<Value<'_>> {
    let b = s.as_bytes();
    let end = skip_string(b, 0);
    if end > b.len() || end < 2 || b[end - 1] != b'"' {
        return None;
    }
    let truncated = match &s[end..] {
        "" => false,
        "..." => true,
        _ => return None,
    };
    Some(Value::Str {
        text: unescape(&b[1..end - 1]),
        truncated,
    })
}

/// Decodes strace's C escapes: `\n \t \r \v \f \\ \" \xHH \OOO`.
pub(crate) fn unescape(b: &[u8]) -> String {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'v' => out.push(0x0b),
            b'f' => out.push(0x0c),
            b'x' => {
                let digits = b[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .count();
                let v = std::str::from_utf8(&b[i..i + digits])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match v {
                    Some(v) => out.push(v),
                    None => out.extend_from_slice(b"\\x"),
                }
                i += digits;
            }
            b'0'..=b'7' => {
                let mut v: u32 = u32::from(c - b'0');
                let mut k = 0;
                while k < 2 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    k += 1;
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(s: &str) -> Value<'_> {
        Value::Sym(s.into())
    }

    #[test]
    fn integers_in_every_base() {
        assert_eq!(parse_value("42"), Value::Int(42));
        assert_eq!(parse_value("-1"), Value::Int(-1));
        assert_eq!(parse_value("0"), Value::Int(0));
        assert_eq!(parse_value("0x7ffd77142820"), Value::Int(0x7ffd77142820));
        assert_eq!(parse_value("0755"), Value::Int(0o755));
        assert_eq!(parse_value("0xffffffffffffffff").as_u64(), Some(u64::MAX));
        assert_eq!(parse_value("-1").as_u64(), Some(u64::MAX));
        assert_eq!(parse_value("0x80000000").as_i32(), Some(i32::MIN));
        assert_eq!(parse_value("3</dev/null>"), Value::Int(3));
        assert_eq!(parse_value("0x"), Value::Raw("0x".into()));
        assert_eq!(parse_value("-"), Value::Raw("-".into()));
        assert_eq!(parse_value("089"), Value::Raw("089".into()));
    }

    #[test]
    fn comments_are_dropped() {
        assert_eq!(
            parse_value("0x7ffd77142820 /* 35 vars */"),
            Value::Int(0x7ffd77142820)
        );
        assert_eq!(parse_value("4 /* 0.04 s */"), Value::Int(4));
    }

    #[test]
    fn strings_escapes_and_truncation() {
        assert_eq!(
            parse_value(r#""tokio-runtime-w"..."#),
            Value::Str {
                text: "tokio-runtime-w".into(),
                truncated: true
            }
        );
        assert_eq!(
            parse_value(r#""a\"b\\c\n\x41\101\0""#),
            Value::Str {
                text: "a\"b\\c\nAA\0".into(),
                truncated: false
            }
        );
        // A string with parentheses, commas and `) = ` inside stays whole.
        let args = parse_args(r#""sh", "-c", "f(x) = 1, y", NULL"#);
        assert_eq!(args.len(), 4);
        assert_eq!(
            args[2],
            Value::Str {
                text: "f(x) = 1, y".into(),
                truncated: false
            }
        );
        // Something after the closing quote that is not `...` is kept raw.
        assert!(matches!(parse_value(r#""a"b"#), Value::Raw(_)));
    }

    #[test]
    fn flags_and_shifts() {
        let v = parse_value("CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
        assert_eq!(
            v,
            Value::Or(vec![
                sym("CLONE_CHILD_CLEARTID"),
                sym("CLONE_CHILD_SETTID"),
                sym("SIGCHLD")
            ])
        );
        let v = parse_value("MAP_PRIVATE|MAP_ANONYMOUS|21<<MAP_HUGE_SHIFT");
        let look = |s: &str| crate::consts::lookup(crate::consts::MAP_FLAGS, s);
        assert_eq!(v.eval_bits(&look), Ok(0x22 | (21 << 26)));
        assert!(parse_value("FOO|1").eval_bits(&look).is_err());
    }

    #[test]
    fn arrays_sets_and_structs() {
        assert_eq!(
            parse_value(r#"["sh", "-c"...]"#),
            Value::Array {
                items: vec![
                    Value::Str {
                        text: "sh".into(),
                        truncated: false
                    },
                    Value::Str {
                        text: "-c".into(),
                        truncated: true
                    },
                ],
                more: false,
            }
        );
        let v = parse_value(r#"["a", "b"..., ...]"#);
        match v {
            Value::Array { items, more } => {
                assert!(more);
                assert_eq!(items.len(), 2);
                assert_eq!(
                    items[1],
                    Value::Str {
                        text: "b".into(),
                        truncated: true
                    }
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse_value("[INT QUIT]"),
            Value::Array {
                items: vec![sym("INT"), sym("QUIT")],
                more: false
            }
        );
        assert_eq!(
            parse_value("~[RTMIN RT_1]"),
            Value::NotSet(vec![sym("RTMIN"), sym("RT_1")])
        );
        assert_eq!(
            parse_value("[]"),
            Value::Array {
                items: vec![],
                more: false
            }
        );
        let v = parse_value("{sa_handler=SIG_IGN, sa_mask=[PIPE], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x7f0239f19050}");
        assert_eq!(v.field("sa_handler"), Some(&sym("SIG_IGN")));
        assert_eq!(v.field("sa_restorer"), Some(&Value::Int(0x7f0239f19050)));
        let v = parse_value("{ru_utime={tv_sec=0, tv_usec=1}, ...}");
        assert!(matches!(v, Value::Struct { more: true, .. }));
        assert_eq!(
            parse_value("{}"),
            Value::Struct {
                fields: vec![],
                more: false
            }
        );
    }

    #[test]
    fn clone3_changed_and_named_values() {
        let v = parse_value("{flags=CLONE_VM, exit_signal=0} => {parent_tid=[4156]}");
        match v {
            Value::Changed(a, b) => {
                assert_eq!(a.field("exit_signal"), Some(&Value::Int(0)));
                assert_eq!(
                    b.field("parent_tid"),
                    Some(&Value::Array {
                        items: vec![Value::Int(4156)],
                        more: false
                    })
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            parse_value("child_stack=NULL"),
            Value::Named("child_stack".into(), Box::new(sym("NULL")))
        );
        assert_eq!(
            parse_value("flags=CLONE_VM|SIGCHLD"),
            Value::Named(
                "flags".into(),
                Box::new(Value::Or(vec![sym("CLONE_VM"), sym("SIGCHLD")]))
            )
        );
        assert_eq!(
            parse_value("makedev(0x1, 0x3)"),
            Value::Call("makedev".into(), vec![Value::Int(1), Value::Int(3)])
        );
    }

    #[test]
    fn wait_status_expressions_stay_raw_inside() {
        let v = parse_value("[{WIFEXITED(s) && WEXITSTATUS(s) == 0}]");
        match v {
            Value::Array { items, .. } => match &items[0] {
                Value::Struct { fields, .. } => {
                    assert_eq!(
                        fields[0],
                        (
                            None,
                            Value::Raw("WIFEXITED(s) && WEXITSTATUS(s) == 0".into())
                        )
                    );
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        // Parsed without exhausting the stack; the deep part stays text.
        let v = parse_value(&deep);
        let mut d = 0;
        let mut cur = &v;
        while let Value::Array { items, .. } = cur {
            d += 1;
            cur = &items[0];
        }
        assert!(d <= MAX_DEPTH + 1 && matches!(cur, Value::Raw(_)), "{d}");
    }

    #[test]
    fn parse_value_never_panics_on_garbage() {
        for s in [
            "[", "]", "{", "}", "~", "~[", "\"", "\\", "=>", "|", "<<", "a=", "=b", "x(", "/*",
            "a|", "0x-1",
        ] {
            let _ = parse_value(s);
            let _ = parse_args(s);
        }
    }
}
