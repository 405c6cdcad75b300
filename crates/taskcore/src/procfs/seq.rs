//! A growable output buffer with the `seq_file` helpers the renderers use.
//!
//! Files are byte strings (a `comm` or an argv need not be UTF-8), so
//! renderers write into [`SeqBuf`], which also implements
//! [`core::fmt::Write`] for formatted text.
//!
//! # Linux
//! fs/seq_file.c `seq_puts`, `seq_putc`, `seq_put_decimal_ull`,
//! `seq_put_decimal_ull_width`, `seq_put_decimal_ll`, `seq_escape_str`.

use core::fmt;

/// A `seq_file` output buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqBuf {
    buf: Vec<u8>,
}

impl SeqBuf {
    /// An empty buffer.
    pub fn new() -> SeqBuf {
        SeqBuf::default()
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// `seq_puts`.
    pub fn puts(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Appends raw bytes (`seq_write`).
    pub fn put_bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// `seq_putc`.
    pub fn putc(&mut self, c: u8) {
        self.buf.push(c);
    }

    /// `seq_put_decimal_ull(m, delimiter, num)`.
    pub fn put_decimal_ull(&mut self, delimiter: &str, num: u64) {
        self.puts(delimiter);
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut n = num;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[i..]);
    }

    /// `seq_put_decimal_ull_width(m, delimiter, num, width)`: right-aligned
    /// in `width` columns, padded with spaces.
    pub fn put_decimal_ull_width(&mut self, delimiter: &str, num: u64, width: usize) {
        self.puts(delimiter);
        let start = self.buf.len();
        self.put_decimal_ull("", num);
        let len = self.buf.len() - start;
        if len < width {
            let pad = width - len;
            self.buf
                .splice(start..start, core::iter::repeat_n(b' ', pad));
        }
    }

    /// `seq_put_decimal_ll(m, delimiter, num)`.
    pub fn put_decimal_ll(&mut self, delimiter: &str, num: i64) {
        self.puts(delimiter);
        if num < 0 {
            self.putc(b'-');
        }
        self.put_decimal_ull("", num.unsigned_abs());
    }

    /// Appends `s`, escaping `\n` as `\\n` and `\\` as `\\\\`: the
    /// `seq_escape_str(m, s, ESCAPE_SPACE | ESCAPE_SPECIAL, "\n\\")` of
    /// `/proc/PID/status`'s `Name:`.
    pub fn put_escaped_name(&mut self, s: &[u8]) {
        for &c in s {
            match c {
                b'\n' => self.put_bytes(b"\\n"),
                b'\\' => self.put_bytes(b"\\\\"),
                _ => self.putc(c),
            }
        }
    }
}

impl fmt::Write for SeqBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.puts(s);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_match_seq_file() {
        let mut m = SeqBuf::new();
        m.put_decimal_ull("", 0);
        m.put_decimal_ull(" ", u64::MAX);
        m.put_decimal_ll(" ", -1);
        m.put_decimal_ll(" ", i64::MIN);
        m.put_decimal_ull_width("\t", 3060, 8);
        m.put_decimal_ull_width("|", 123_456_789, 8);
        assert_eq!(
            m.as_bytes(),
            b"0 18446744073709551615 -1 -9223372036854775808\t    3060|123456789"
        );
    }

    #[test]
    fn name_escaping() {
        let mut m = SeqBuf::new();
        m.put_escaped_name(b"a\nb\\c d\t");
        assert_eq!(m.as_bytes(), b"a\\nb\\\\c d\t");
    }
}
