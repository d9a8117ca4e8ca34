//! Tree nodes: the packed statistics word, the 32-byte atomic [`Node`] and the zeroed
//! arena it lives in.

use super::*;

/// One visit in a node's packed statistics word.
pub(super) const VISIT: u64 = 1 << 32;

/// Win units per win in a statistics word: a draw is half of them, and a result mixed with a
/// network's value ([`ValueMix`]) is rounded to one of them (at random, so without bias).
/// A power of two, so every count reads back exactly as a float.
pub const UNITS: u32 = 16;

/// `first` of a node whose children one thread is writing.
pub const EXPANDING: u32 = u32::MAX;

/// Packs visits and wins (in [`UNITS`]) into one statistics word.
pub(super) fn pack(visits: u32, win_units: u32) -> u64 {
    (u64::from(visits) << 32) | u64::from(win_units)
}

/// Visits and wins of a statistics word.
pub(super) fn unpack(word: u64) -> (u32, f32) {
    (
        (word >> 32) as u32,
        (word as u32) as f32 * (1.0 / UNITS as f32),
    )
}

/// One tree node: the move that led here and its statistics. Every field is atomic so the
/// threads of a tree-parallel search share nodes without locks; `mv`, `prior`,
/// `prior_units` and `value` are written once, before the node is published.
#[derive(Debug, Default)]
pub struct Node {
    /// Visits (prior included) in the high 32 bits, wins of the player who made `mv` in
    /// [`UNITS`] (draws count half, prior wins included) in the low 32.
    pub(super) stats: AtomicU64,
    /// AMAF (RAVE) visits and wins, packed like `stats`: simulations through the parent in
    /// which the mover played `mv` later on, first at that point.
    pub(super) amaf: AtomicU64,
    /// Index of the first child; 0 = not expanded (the root sits at 0, so no child can),
    /// [`EXPANDING`] = being expanded.
    pub(super) first: AtomicU32,
    /// Prior wins given at creation, in [`UNITS`] (counted in `stats`).
    pub(super) prior_units: AtomicU32,
    /// Prior visits given at creation (soft pruning, heuristic priors; counted in `stats`).
    pub(super) prior: AtomicU16,
    /// Black's win probability at this position by the value network, as
    /// `1 + round(p * 65534)`; 0 = not evaluated (set when the node is expanded).
    pub(super) value: AtomicU16,
    /// The move's prior probability under PUCT selection, as `round(p * 65535)` (0 outside
    /// PUCT), written once at creation.
    pub(super) policy: AtomicU16,
    /// The move leading here: flat index, 81 = pass.
    pub(super) mv: AtomicU8,
    /// Number of children (at most 82: every point and pass).
    pub(super) n_children: AtomicU8,
}

impl Node {
    /// (Re)initialises the node as a new leaf.
    pub(super) fn init(&self, mv: usize, prior: u16, prior_units: u32) {
        self.stats
            .store(pack(u32::from(prior), prior_units), Relaxed);
        self.policy.store(0, Relaxed);
        self.amaf.store(0, Relaxed);
        self.first.store(0, Relaxed);
        self.prior_units.store(prior_units, Relaxed);
        self.prior.store(prior, Relaxed);
        self.value.store(0, Relaxed);
        self.mv.store(mv as u8, Relaxed);
        self.n_children.store(0, Relaxed);
    }

    /// The move leading here: flat index, [`PASS_INDEX`] = pass.
    pub fn mv(&self) -> usize {
        self.mv.load(Relaxed) as usize
    }
    /// Prior visits given at creation.
    pub fn prior(&self) -> u16 {
        self.prior.load(Relaxed)
    }
    /// The move's PUCT prior probability (0 outside PUCT).
    pub fn policy(&self) -> f32 {
        f32::from(self.policy.load(Relaxed)) * (1.0 / 65535.0)
    }
    pub(super) fn set_policy(&self, p: f32) {
        self.policy
            .store((p.clamp(0.0, 1.0) * 65535.0).round() as u16, Relaxed);
    }
    /// Visits and wins, prior included, read together.
    pub fn stats(&self) -> (u32, f32) {
        unpack(self.stats.load(Relaxed))
    }
    /// Visits, prior included.
    pub fn visits(&self) -> u32 {
        self.stats().0
    }
    /// Wins, prior included.
    pub fn wins(&self) -> f32 {
        self.stats().1
    }
    /// AMAF visits and wins.
    pub fn amaf(&self) -> (u32, f32) {
        unpack(self.amaf.load(Relaxed))
    }
    /// Visits made by simulations (the prior taken out).
    pub fn real_visits(&self) -> u32 {
        self.visits() - u32::from(self.prior())
    }
    /// Wins made by simulations (the prior taken out).
    pub fn real_wins(&self) -> f32 {
        self.real_win_units() as f32 * (1.0 / UNITS as f32)
    }
    /// [`real_wins`](Self::real_wins) in [`UNITS`], exact.
    pub(super) fn real_win_units(&self) -> u32 {
        (self.stats.load(Relaxed) as u32).saturating_sub(self.prior_units.load(Relaxed))
    }
    /// Black's win probability at this position by the value network, if it was evaluated.
    pub fn black_value(&self) -> Option<f32> {
        match self.value.load(Relaxed) {
            0 => None,
            v => Some((v - 1) as f32 / 65534.0),
        }
    }
    pub(super) fn set_black_value(&self, p: f32) {
        self.value
            .store(1 + (p.clamp(0.0, 1.0) * 65534.0).round() as u16, Relaxed);
    }
    /// The arena range of the children, once they are published.
    pub(super) fn children(&self) -> Option<Range<usize>> {
        match self.first.load(Acquire) {
            0 | EXPANDING => None,
            f => Some(f as usize..f as usize + self.n_children.load(Relaxed) as usize),
        }
    }
    pub fn is_expanded(&self) -> bool {
        self.children().is_some()
    }
    /// Copies `from`'s move, prior and statistics; the copy is a leaf until its children
    /// are copied too.
    pub(super) fn copy_from(&self, from: &Node) {
        self.init(from.mv(), from.prior(), from.prior_units.load(Relaxed));
        self.stats.store(from.stats.load(Relaxed), Relaxed);
        self.amaf.store(from.amaf.load(Relaxed), Relaxed);
        self.value.store(from.value.load(Relaxed), Relaxed);
        self.policy.store(from.policy.load(Relaxed), Relaxed);
    }
}

/// A zeroed node arena: all-zero nodes are valid empty leaves, and the allocator hands out
/// zeroed pages lazily, so a large budget costs memory only as the tree grows.
pub(super) fn zeroed_nodes(n: usize) -> Box<[Node]> {
    try_zeroed_nodes(n).unwrap_or_else(|| {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<Node>(n.max(1)).expect("node arena size"),
        )
    })
}

// The allocation error's message counts 32 bytes a node.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// [`zeroed_nodes`], or `None` when the memory is not there (a low `ulimit -v`, many
/// engines at once): the caller says so, or searches without reuse, instead of aborting.
pub(super) fn try_zeroed_nodes(n: usize) -> Option<Box<[Node]>> {
    let n = n.max(1);
    let layout = std::alloc::Layout::array::<Node>(n).expect("node arena size");
    // SAFETY: the layout has a non-zero size (n >= 1, `Node` is 32 bytes); the pointer comes
    // from the global allocator with exactly this layout, as `Box<[Node]>` frees it; and
    // `Node` holds only atomic integers, for which all-zero bytes are a valid value, so
    // every element is initialised.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout).cast::<Node>();
        if ptr.is_null() {
            return None;
        }
        Some(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n)))
    }
}
