/// Proof that wait edges were marked dirty ([`mark`] is the only way to get
/// one): what a [`Ready`] field's setter asks for.
#[must_use]
pub(crate) struct Marked(());

/// Marks `d` in `marks` (once: a mark equal to the last one is not pushed
/// again), and hands out the proof that it did.
#[inline]
pub(crate) fn mark<D: PartialEq>(marks: &mut Vec<D>, d: D) -> Marked {
    if marks.last() != Some(&d) {
        marks.push(d);
    }
    Marked(())
}

/// As [`mark`] for a field of an owner that `edged` tells whether any
/// wait edge depends on: with none (a thread that is neither traced nor
/// its group's leader, whose exit state no edge reads) there is nothing to
/// re-sync and nothing is pushed; an edge it gets later is registered from
/// the state it then has.
#[inline(always)]
pub(crate) fn mark_if_edged<D: PartialEq>(marks: &mut Vec<D>, d: D, edged: bool) -> Marked {
    if edged && marks.last() != Some(&d) {
        marks.push(d);
    }
    Marked(())
}

/// The proof for a write whose one dependent edge the caller registers
/// itself, in the state the write gives it, before it returns (a child
/// edge's [`register_child_state`]): no mark is pushed, so nothing is
/// left for the flush, and no other mark is touched. Only for that case:
/// an edge a caller fails to register stays stale, and
/// `Kernel::check_invariants` fails on it.
///
/// [`register_child_state`]: crate::task::kernel::Kernel::register_child_state
#[inline(always)]
pub(crate) fn registered_by_caller() -> Marked {
    Marked(())
}

/// A field that wait readiness reads (`edge_state`: a task's exit state,
/// ptrace stop and trap code; a group's `SIGNAL_*` flags, group exit code
/// and exit signal). It is read with [`get`](Self::get) and written only
/// with [`set`](Self::set), which takes the [`Marked`] proof that the edges
/// depending on it were marked, so that a write that forgets the mark does
/// not compile:
///
/// ```compile_fail,E0616
/// mod ready {
///     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/wait/ready.rs"));
/// }
/// use ready::{mark, Ready};
/// struct Task {
///     state: Ready<u8>,
/// }
/// let mut marks: Vec<u32> = Vec::new();
/// let mut t = Task { state: Ready::initial(0) };
/// t.state.set(1, mark(&mut marks, 7)); // through the setter: fine
/// t.state.0 = 2; // a direct write: error[E0616], field `0` is private
/// ```
///
/// The same program without the direct write compiles:
///
/// ```
/// mod ready {
///     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/src/wait/ready.rs"));
/// }
/// use ready::{mark, Ready};
/// struct Task {
///     state: Ready<u8>,
/// }
/// let mut marks: Vec<u32> = Vec::new();
/// let mut t = Task { state: Ready::initial(0) };
/// t.state.set(1, mark(&mut marks, 7));
/// assert_eq!((t.state.get(), marks), (1, vec![7]));
/// ```
///
/// Same layout as `T` (no cost on the hot paths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(crate) struct Ready<T>(T);

impl<T: Copy> Ready<T> {
    /// The value of a field of a task or group being created, before its
    /// wait edges exist.
    #[inline(always)]
    pub(crate) const fn initial(v: T) -> Ready<T> {
        Ready(v)
    }

    /// The value.
    #[inline(always)]
    pub(crate) fn get(self) -> T {
        self.0
    }

    /// Writes `v`, given the proof that the dependent edges were marked.
    #[inline(always)]
    pub(crate) fn set(&mut self, v: T, _marked: Marked) {
        self.0 = v;
    }

    /// Writes `v` without a mark: for the tests that check that
    /// `check_invariants` catches a stale edge.
    #[cfg(test)]
    pub(crate) fn set_unmarked(&mut self, v: T) {
        self.0 = v;
    }
}
