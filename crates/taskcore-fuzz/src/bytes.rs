//! Reading fuzz input as a stream of choices. Past the end every read
//! returns 0, so any input decodes to some finite sequence.

/// A cursor over the input.
#[derive(Debug)]
pub(crate) struct Bytes<'a> {
    d: &'a [u8],
    i: usize,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(d: &'a [u8]) -> Bytes<'a> {
        Bytes { d, i: 0 }
    }

    /// Whether every byte was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.i >= self.d.len()
    }

    pub(crate) fn u8(&mut self) -> u8 {
        let v = self.d.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        v
    }

    pub(crate) fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub(crate) fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    /// An index below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.u8() as usize % n
        }
    }

    /// A signal number from -1 to 130.
    pub(crate) fn sig(&mut self) -> i32 {
        i32::from(self.u8() % 132) - 1
    }

    /// A pid-like argument: the encodings Linux treats specially, small
    /// numbers, extremes, or `near` (a live task's number).
    pub(crate) fn pid(&mut self, near: i32) -> i32 {
        match self.u8() % 10 {
            0 => -1,
            1 => 0,
            2 => 1,
            3 => i32::MIN,
            4 => i32::MAX,
            5 => -near,
            6 => i32::from(self.u8()),
            7 => -(i32::from(self.u8())),
            8 => self.u32() as i32,
            _ => near,
        }
    }

    /// An address or length: page-aligned, small, or near `u64::MAX`.
    pub(crate) fn addr(&mut self) -> u64 {
        match self.u8() % 6 {
            0 => 0,
            1 => u64::from(self.u8()) << 12,
            2 => u64::MAX - (u64::from(self.u8()) << 12),
            3 => 0x7f00_0000_0000 + (u64::from(self.u16()) << 12),
            4 => 0x1000_0000 + (u64::from(self.u8()) << 12),
            _ => self.u64(),
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }
}
