//! Constant lookup tables for the 9x9 board, built at compile time: neighbour lists and
//! neighbour/diagonal bit masks, the board mask, and the Zobrist keys.

use super::coord::{N, NN};

/// A set of points: bit `i` is flat index `i` (81 bits of a `u128` are used).
pub type Bits = u128;

/// All 81 points.
pub const BOARD: Bits = (1u128 << NN) - 1;

/// Single-point sets, looked up rather than shifted: a variable 128-bit shift costs about
/// eight instructions on x86-64, a load one.
const BITS: [Bits; NN + 1] = {
    let mut t = [0u128; NN + 1];
    let mut i = 0;
    while i < NN {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
};

/// The single-point set for flat index `i` (`i == 81`, the pass index, gives the empty set).
#[inline(always)]
pub const fn bit(i: usize) -> Bits {
    BITS[i]
}

const fn neighbour_list(i: usize) -> ([u8; 4], u8) {
    let (r, c) = (i / N, i % N);
    let mut out = [0u8; 4];
    let mut k = 0;
    if r > 0 {
        out[k] = (i - N) as u8;
        k += 1;
    }
    if c > 0 {
        out[k] = (i - 1) as u8;
        k += 1;
    }
    if c + 1 < N {
        out[k] = (i + 1) as u8;
        k += 1;
    }
    if r + 1 < N {
        out[k] = (i + N) as u8;
        k += 1;
    }
    (out, k as u8)
}

const fn build_neighbours() -> ([[u8; 4]; NN], [u8; NN], [Bits; NN]) {
    let mut list = [[0u8; 4]; NN];
    let mut count = [0u8; NN];
    let mut mask = [0u128; NN];
    let mut i = 0;
    while i < NN {
        let (l, k) = neighbour_list(i);
        list[i] = l;
        count[i] = k;
        let mut j = 0;
        while j < k as usize {
            mask[i] |= 1u128 << l[j];
            j += 1;
        }
        i += 1;
    }
    (list, count, mask)
}

const fn build_diagonals() -> [Bits; NN] {
    let mut mask = [0u128; NN];
    let mut i = 0;
    while i < NN {
        let (r, c) = ((i / N) as isize, (i % N) as isize);
        let d = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
        let mut j = 0;
        while j < 4 {
            let (rr, cc) = (r + d[j].0, c + d[j].1);
            if rr >= 0 && rr < N as isize && cc >= 0 && cc < N as isize {
                mask[i] |= 1u128 << (rr as usize * N + cc as usize);
            }
            j += 1;
        }
        i += 1;
    }
    mask
}

const NEIGHBOUR_TABLES: ([[u8; 4]; NN], [u8; NN], [Bits; NN]) = build_neighbours();
/// Orthogonal neighbours of each point (first `NEIGHBOUR_COUNT[i]` entries are valid).
pub const NEIGHBOURS: [[u8; 4]; NN] = NEIGHBOUR_TABLES.0;
/// How many orthogonal neighbours each point has (2 in a corner, 3 on an edge, else 4).
pub const NEIGHBOUR_COUNT: [u8; NN] = NEIGHBOUR_TABLES.1;
/// Orthogonal neighbours of each point as a mask.
pub const NEIGHBOUR_MASK: [Bits; NN] = NEIGHBOUR_TABLES.2;
/// Index standing for "off the board" in [`NEIGHBOURS_PADDED`] (one past the last point).
pub const OFF_BOARD: u8 = NN as u8;

/// Orthogonal neighbours of each point, always four, with [`OFF_BOARD`] for the missing
/// ones: the board's hot loops index arrays with one spare slot by these and need neither a
/// count nor a bounds check.
pub const NEIGHBOURS_PADDED: [[u8; 4]; NN] = {
    let mut t = [[OFF_BOARD; 4]; NN];
    let mut i = 0;
    while i < NN {
        let mut j = 0;
        while j < NEIGHBOUR_COUNT[i] as usize {
            t[i][j] = NEIGHBOURS[i][j];
            j += 1;
        }
        i += 1;
    }
    t
};
/// Diagonal neighbours of each point as a mask.
pub const DIAGONAL_MASK: [Bits; NN] = build_diagonals();

/// Points on the first line (edges and corners).
pub const ON_EDGE: Bits = {
    let mut m = 0u128;
    let mut i = 0;
    while i < NN {
        let (r, c) = (i / N, i % N);
        if r == 0 || c == 0 || r == N - 1 || c == N - 1 {
            m |= 1u128 << i;
        }
        i += 1;
    }
    m
};

/// Left column (col 0) and right column (col 8), for shifting masks sideways.
const COL_LEFT: Bits = {
    let mut m = 0u128;
    let mut r = 0;
    while r < N {
        m |= 1u128 << (r * N);
        r += 1;
    }
    m
};
const COL_RIGHT: Bits = COL_LEFT << (N - 1);

const ROW_TOP: Bits = (1u128 << N) - 1;
const ROW_BOTTOM: Bits = ROW_TOP << (N * (N - 1));

/// Points whose every on-board orthogonal neighbour is in `m` (off-board counts as in).
#[inline(always)]
pub const fn all_neighbours_in(m: Bits) -> Bits {
    let up = (m << N) | ROW_TOP;
    let down = (m >> N) | ROW_BOTTOM;
    let left = ((m << 1) & !COL_LEFT) | COL_LEFT;
    let right = ((m >> 1) & !COL_RIGHT) | COL_RIGHT;
    up & down & left & right & BOARD
}

/// Points with at least one orthogonal neighbour in `m`.
#[inline(always)]
pub const fn has_neighbour_in(m: Bits) -> Bits {
    ((m << N) | (m >> N) | ((m << 1) & !COL_LEFT) | ((m >> 1) & !COL_RIGHT)) & BOARD
}

/// Points with at least one, and with at least two, diagonal neighbours in `m`.
#[inline(always)]
pub const fn diagonal_counts(m: Bits) -> (Bits, Bits) {
    let ul = (m << (N + 1)) & !COL_LEFT; // neighbour up-left is i - 10
    let ur = (m << (N - 1)) & !COL_RIGHT; // up-right: i - 8
    let dl = (m >> (N - 1)) & !COL_LEFT; // down-left: i + 8
    let dr = (m >> (N + 1)) & !COL_RIGHT; // down-right: i + 10
    let any = (ul | ur | dl | dr) & BOARD;
    let two = ((ul & ur) | ((ul | ur) & (dl | dr)) | (dl & dr)) & BOARD;
    (any, two)
}

/// The set plus every point orthogonally adjacent to it (a one-step dilation).
#[inline]
pub const fn grow(m: Bits) -> Bits {
    (m | (m << N) | (m >> N) | ((m & !COL_RIGHT) << 1) | ((m & !COL_LEFT) >> 1)) & BOARD
}

/// Points reachable from `seed` by orthogonal steps that stay inside `within`
/// (`seed` itself is always included).
#[inline]
pub fn flood(seed: Bits, within: Bits) -> Bits {
    let mut cur = seed;
    loop {
        let next = seed | (grow(cur) & within);
        if next == cur {
            return cur;
        }
        cur = next;
    }
}

/// Iterator over the flat indices of the set bits, lowest first.
#[derive(Clone, Copy)]
pub struct BitIter(pub Bits);

impl Iterator for BitIter {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(i)
        }
    }
}

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build_zobrist() -> [[u64; NN]; 2] {
    let mut t = [[0u64; NN]; 2];
    let mut s = 0x616b_7573_6875_u64; // "akushu": fixed so hashes are stable across runs
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < NN {
            let (ns, v) = splitmix(s);
            s = ns;
            t[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    t
}

/// Zobrist keys: `ZOBRIST[colour][point]`, colour 0 = black, 1 = white.
pub const ZOBRIST: [[u64; NN]; 2] = build_zobrist();
/// Hash key xor-ed in when white is to move (used by the game layer and search, not the board).
pub const ZOBRIST_WHITE_TO_MOVE: u64 = splitmix(0x5eed).1;
/// Hash keys for the simple-ko point (plus one for "no ko"), for search transposition tables.
pub const ZOBRIST_KO: [u64; NN] = {
    let mut t = [0u64; NN];
    let mut s = 0x6b6fu64;
    let mut i = 0;
    while i < NN {
        let (ns, v) = splitmix(s);
        s = ns;
        t[i] = v;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbour_counts() {
        assert_eq!(NEIGHBOUR_COUNT[0], 2);
        assert_eq!(NEIGHBOUR_COUNT[4], 3);
        assert_eq!(NEIGHBOUR_COUNT[40], 4);
        assert_eq!(NEIGHBOUR_MASK[0], bit(1) | bit(9));
        assert_eq!(DIAGONAL_MASK[0], bit(10));
        assert_eq!(DIAGONAL_MASK[40].count_ones(), 4);
        assert_eq!(grow(bit(8)), bit(8) | bit(7) | bit(17));
        assert_eq!(grow(bit(9)), bit(9) | bit(0) | bit(18) | bit(10));
        for (i, &neighbours) in NEIGHBOUR_MASK.iter().enumerate() {
            assert_eq!(grow(bit(i)) & !bit(i), neighbours);
            assert_eq!(has_neighbour_in(bit(i)), neighbours);
            let (any, two) = diagonal_counts(bit(i));
            assert_eq!(any, DIAGONAL_MASK[i], "diagonals of {i}");
            assert_eq!(two, 0);
            // with only point i missing, i is still surrounded and its neighbours are not
            let holed = all_neighbours_in(BOARD & !bit(i));
            assert_eq!(holed & bit(i), bit(i));
            assert_eq!(holed & neighbours, 0);
        }
        for i in 0..NN {
            let padded = NEIGHBOURS_PADDED[i];
            let k = NEIGHBOUR_COUNT[i] as usize;
            assert_eq!(padded[..k], NEIGHBOURS[i][..k], "padded neighbours of {i}");
            assert!(
                padded[k..].iter().all(|&n| n == OFF_BOARD),
                "padding of {i}"
            );
        }
        assert_eq!(
            all_neighbours_in(0),
            0,
            "every point has an on-board neighbour"
        );
    }
}
