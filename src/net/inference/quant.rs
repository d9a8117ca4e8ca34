//! The CNN with 8-bit integer convolutions ([`QuantCnn`]): the same trained network as
//! [`PlainCnn`], its residual tower run on 8-bit activations and weights.
//!
//! Why: in the strong engine the network's forward pass is about a third of the search
//! time, and at batch 1 the float kernel already runs at about two thirds of a core's FMA
//! peak. An 8-bit product is four times narrower than a float one: AVX-512 VNNI's
//! `vpdpbusd` multiplies 64 byte pairs and adds them in fours to 16 integer sums in one
//! instruction (AVX-VNNI's, on 256-bit registers, 32 pairs); AVX2's `vpmaddwd` does 16
//! pairs of 16-bit values.
//!
//! How: every convolution of the tower (the stem and both convolutions of each block)
//!
//! 1. quantizes its input per board: the input is non-negative (ReLU outputs, 0/1 planes),
//!    so one step is `max / 255` and each value becomes the nearest whole number of steps
//!    (`0..=255`; the 0/1 input planes come out exact);
//! 2. multiplies by weights quantized once at load time, per output channel, to
//!    `-127..=127` steps of `max |w| / 127`, and sums in 32-bit integers;
//! 3. scales the sum back to a float, adds the bias and applies ReLU or the residual
//!    connection in float, as [`PlainCnn`] does.
//!
//! The 1x1 move head stays in float. Integer sums are exact whatever their order, and the
//! float steps around them are the same operations in the same order in every kernel, so the
//! VNNI, AVX-VNNI, AVX2 and portable kernels give the same logits to the bit: a seeded
//! search plays the same game on any x86-64 machine. The logits differ from the float
//! network's by the rounding to 8 bits; `docs/notes-net.md` ("8-bit evaluation") gives the
//! measured accuracy and speed, per kernel, and the switches that force each kernel.

use super::plain::{Conv, Epilogue, INTERIOR, PP, PlainCnn, Scratch};
use crate::rules::NN;

/// Quantized activations of one batch and each board's step size (one per thread, inside
/// [`Scratch`]).
#[derive(Debug, Default, Clone)]
pub struct QuantActs {
    /// `[board][121][cpad]` steps, for the portable and VNNI kernels.
    bytes: Vec<u8>,
    /// The same steps as 16-bit values, for the AVX2 kernel (`vpmaddwd` takes 16-bit pairs).
    words: Vec<u16>,
    /// Per board: the float value of one step.
    scales: Vec<f32>,
}

/// How finely activations are stepped: the largest step a board's largest value becomes.
/// Every kernel computes the same steps, so the choice changes the logits but never makes
/// two kernels disagree; it is part of a network's name (`nnq:` 8 bits, `nnq7:` 7 bits).
///
/// Why two: `vpmaddubsw` (AVX2's only byte multiply) adds two byte products in a signed
/// 16-bit lane, which 8-bit steps can overflow (2 x 255 x 127 > 32,767) and 7-bit steps
/// cannot (2 x 127 x 127 = 32,258). With 7-bit steps the AVX2 kernel multiplies bytes, 32
/// products in three instructions, as Stockfish's NNUE does on AVX2; with 8-bit steps it
/// multiplies 16-bit pairs (`vpmaddwd`), 32 products in four, reading twice the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ActSteps {
    /// `0..=255`: one step is `max / 255` (`nnq:`).
    #[default]
    Eight,
    /// `0..=127`: one step is `max / 127` (`nnq7:`).
    Seven,
}

impl ActSteps {
    /// The steps of `bits` bits (8 or 7).
    pub fn from_bits(bits: u8) -> Option<ActSteps> {
        match bits {
            8 => Some(ActSteps::Eight),
            7 => Some(ActSteps::Seven),
            _ => None,
        }
    }

    /// 8 or 7.
    pub fn bits(self) -> u8 {
        match self {
            ActSteps::Eight => 8,
            ActSteps::Seven => 7,
        }
    }

    /// The largest step.
    fn top(self) -> i32 {
        match self {
            ActSteps::Eight => 255,
            ActSteps::Seven => 127,
        }
    }
}

/// Which integer kernel runs the convolutions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    Portable,
    /// `vpmaddwd` on 16-bit pairs (any AVX2 CPU).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// `vpdpbusd` on 256-bit registers (AVX-VNNI: Intel Alder Lake and later, AMD Zen 5).
    #[cfg(target_arch = "x86_64")]
    AvxVnni,
    /// `vpdpbusd` on 512-bit registers (AVX-512 VNNI).
    #[cfg(target_arch = "x86_64")]
    Vnni,
}

impl Kernel {
    /// The name benchmarks print (`vnni`, `avxvnni`, `avx2`, `portable`).
    fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => "avxvnni",
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => "vnni",
        }
    }
}

/// The fastest kernel this CPU runs. Each environment variable takes away what a CPU
/// without that extension lacks, so every kernel can be measured on one machine:
/// `AKUSHU_NO_AVX512` rules out the VNNI kernel, `AKUSHU_NO_AVXVNNI` the AVX-VNNI one,
/// `AKUSHU_NO_AVX2` every SIMD kernel (the portable loop runs, as on aarch64).
fn best_kernel() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        use super::plain::{avx2_allowed, has_avx512};
        static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let avx2 = std::arch::is_x86_feature_detected!("avx2") && avx2_allowed();
            if has_avx512()
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                Kernel::Vnni
            } else if avx2
                && std::arch::is_x86_feature_detected!("avxvnni")
                && std::env::var_os("AKUSHU_NO_AVXVNNI").is_none()
            {
                Kernel::AvxVnni
            } else if avx2 {
                Kernel::Avx2
            } else {
                Kernel::Portable
            }
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    Kernel::Portable
}

/// The 8-bit kernel [`QuantCnn`] runs on this CPU (`vnni`, `avxvnni`, `avx2` or
/// `portable`), for benchmarks to print next to their figures. Layers whose output
/// channels do not fill the kernel's registers fall back to a narrower one.
pub fn kernel_name() -> &'static str {
    best_kernel().name()
}

/// Whether `kernel` at `steps` reads the activations as 16-bit words (the `vpmaddwd` AVX2
/// kernel on 8-bit steps) rather than bytes: one answer for [`quantize`], which writes them,
/// and [`QConv::forward`], which picks the kernel that reads them.
fn reads_words(kernel: Kernel, steps: ActSteps) -> bool {
    #[cfg(target_arch = "x86_64")]
    return kernel == Kernel::Avx2 && steps == ActSteps::Eight;
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (kernel, steps);
        false
    }
}

/// `c` rounded up to a multiple of 4 (VNNI sums four input channels per lane).
const fn padded_channels(c: usize) -> usize {
    c.div_ceil(4) * 4
}

/// Quantizes the `c` channels of every interior point of `n` boards (`src`: channels-last,
/// padded, `c` values a point) into `acts` with `cpad` channels a point, in the layout
/// `kernel` reads; borders and the padding channels are zero. The SIMD versions compute the
/// same steps as the scalar one (the largest value is the same in any order; `cvtps2dq`
/// rounds half to even like `round_ties_even`), so every kernel sees the same integers.
#[allow(clippy::too_many_arguments)]
fn quantize(
    src: &[f32],
    c: usize,
    cpad: usize,
    n: usize,
    kernel: Kernel,
    steps: ActSteps,
    acts: &mut QuantActs,
) {
    let len = n * PP * cpad;
    let top = steps.top();
    acts.scales.resize(n, 0.0);
    let wide = reads_words(kernel, steps);
    if wide {
        acts.words.clear();
        acts.words.resize(len, 0);
    } else {
        acts.bytes.clear();
        acts.bytes.resize(len, 0);
    }
    for board in 0..n {
        let s = &src[board * PP * c..(board + 1) * PP * c];
        let (bytes, words) = if wide {
            (
                &mut [][..],
                &mut acts.words[board * PP * cpad..(board + 1) * PP * cpad],
            )
        } else {
            (
                &mut acts.bytes[board * PP * cpad..(board + 1) * PP * cpad],
                &mut [][..],
            )
        };
        acts.scales[board] = match kernel {
            // SAFETY: these kernels are chosen only where the CPU has the features; slices
            // hold 121 points of `c` (source) and `cpad` (destination) values.
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni if c.is_multiple_of(16) && c == cpad => unsafe {
                quantize_board_avx512(s, c, top, bytes)
            },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::AvxVnni if c.is_multiple_of(16) && c == cpad => unsafe {
                quantize_board_avx2(s, c, top, bytes, words)
            },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 | Kernel::AvxVnni | Kernel::Vnni => unsafe {
                quantize_board_sse41(s, c, cpad, top, bytes, words)
            },
            _ => quantize_board(s, c, cpad, top, bytes, words),
        };
    }
}

/// The step size and its inverse for activations whose largest value is `max` and becomes
/// step `top` (0 if all are zero: every step is then 0).
#[inline(always)]
fn step_for(max: f32, top: i32) -> (f32, f32) {
    let top = top as f32;
    if max > 0.0 {
        (max / top, top / max)
    } else {
        (0.0, 0.0)
    }
}

/// One board, any CPU: writes `bytes` (or `words` where `bytes` is empty); returns the step.
#[inline(always)]
fn quantize_board(
    s: &[f32],
    c: usize,
    cpad: usize,
    top: i32,
    bytes: &mut [u8],
    words: &mut [u16],
) -> f32 {
    let max = INTERIOR
        .iter()
        .flat_map(|&q| &s[q * c..(q + 1) * c])
        .fold(0.0f32, |m, &v| if v > m { v } else { m });
    let (scale, inv) = step_for(max, top);
    let most = top as f32;
    for &q in &INTERIOR {
        let from = &s[q * c..(q + 1) * c];
        let at = q * cpad;
        let step = |v: f32| (v * inv).round_ties_even().clamp(0.0, most) as u8;
        if bytes.is_empty() {
            for (d, &v) in words[at..at + c].iter_mut().zip(from) {
                *d = u16::from(step(v));
            }
        } else {
            for (d, &v) in bytes[at..at + c].iter_mut().zip(from) {
                *d = step(v);
            }
        }
    }
    scale
}

/// [`quantize_board`] compiled with SSE4.1, whose `roundss` rounds half to even in one
/// instruction (without it `round_ties_even` is a library call).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn quantize_board_sse41(
    s: &[f32],
    c: usize,
    cpad: usize,
    top: i32,
    bytes: &mut [u8],
    words: &mut [u16],
) -> f32 {
    quantize_board(s, c, cpad, top, bytes, words)
}

/// One board of `c` (a multiple of 16) channels into bytes, sixteen values an instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quantize_board_avx512(s: &[f32], c: usize, top: i32, bytes: &mut [u8]) -> f32 {
    use std::arch::x86_64::*;
    assert!(s.len() >= PP * c && bytes.len() >= PP * c);
    // SAFETY (all pointer reads and writes): every interior point's `c` values lie inside
    // `s` and `bytes` (asserted above).
    let mut m = _mm512_setzero_ps();
    for &q in &INTERIOR {
        for j in (0..c).step_by(16) {
            m = _mm512_max_ps(m, unsafe { _mm512_loadu_ps(s.as_ptr().add(q * c + j)) });
        }
    }
    let (scale, inv) = step_for(_mm512_reduce_max_ps(m), top);
    let (inv, lo, hi) = (
        _mm512_set1_ps(inv),
        _mm512_setzero_si512(),
        _mm512_set1_epi32(top),
    );
    for &q in &INTERIOR {
        for j in (0..c).step_by(16) {
            let x = _mm512_mul_ps(unsafe { _mm512_loadu_ps(s.as_ptr().add(q * c + j)) }, inv);
            let i = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(x), lo), hi);
            unsafe {
                _mm_storeu_si128(
                    bytes.as_mut_ptr().add(q * c + j) as *mut __m128i,
                    _mm512_cvtepi32_epi8(i),
                )
            };
        }
    }
    scale
}

/// One board of `c` (a multiple of 16) channels into bytes, or into 16-bit words where
/// `bytes` is empty, eight values an instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_board_avx2(
    s: &[f32],
    c: usize,
    top: i32,
    bytes: &mut [u8],
    words: &mut [u16],
) -> f32 {
    use std::arch::x86_64::*;
    let to_bytes = !bytes.is_empty();
    assert!(s.len() >= PP * c && (if to_bytes { bytes.len() } else { words.len() }) >= PP * c);
    // SAFETY (all pointer reads and writes): as in `quantize_board_avx512`.
    let mut m = _mm256_setzero_ps();
    for &q in &INTERIOR {
        for j in (0..c).step_by(8) {
            m = _mm256_max_ps(m, unsafe { _mm256_loadu_ps(s.as_ptr().add(q * c + j)) });
        }
    }
    let mut lanes = [0f32; 8];
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), m) };
    let max = lanes.iter().fold(0.0f32, |m, &v| if v > m { v } else { m });
    let (scale, inv) = step_for(max, top);
    let (inv, lo, hi) = (
        _mm256_set1_ps(inv),
        _mm256_setzero_si256(),
        _mm256_set1_epi32(top),
    );
    let steps = |at: usize| {
        let x = _mm256_mul_ps(unsafe { _mm256_loadu_ps(s.as_ptr().add(at)) }, inv);
        _mm256_min_epi32(_mm256_max_epi32(_mm256_cvtps_epi32(x), lo), hi)
    };
    // The steps are 0..=255 at most, so neither pack saturates.
    // packus interleaves 128-bit lanes: [a0-3 b0-3 | a4-7 b4-7] as words.
    let pack = |at: usize| _mm256_packus_epi32(steps(at), steps(at + 8));
    if to_bytes {
        // Packed again to bytes, each 32-bit unit holds four steps: [a0-3 b0-3 a0-3 b0-3 |
        // a4-7 b4-7 ...]; units 0, 4, 1, 5 are the 16 steps in order.
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for &q in &INTERIOR {
            for j in (0..c).step_by(16) {
                let at = q * c + j;
                let w = pack(at);
                let b = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(w, w), order);
                let low = _mm256_castsi256_si128(b);
                unsafe { _mm_storeu_si128(bytes.as_mut_ptr().add(at) as *mut __m128i, low) };
            }
        }
    } else {
        for &q in &INTERIOR {
            for j in (0..c).step_by(16) {
                let at = q * c + j;
                // The permute restores the order of the words.
                let ordered = _mm256_permute4x64_epi64(pack(at), 0b11_01_10_00);
                unsafe { _mm256_storeu_si256(words.as_mut_ptr().add(at) as *mut __m256i, ordered) };
            }
        }
    }
    scale
}

/// The float step after an integer sum: `sum * (step * wscale) + bias`, then the epilogue.
/// Every kernel does exactly these operations (no fused multiply-add), so all agree to the
/// bit; `if y > 0 { y } else { 0 }` is what `maxps(y, 0)` computes.
#[inline(always)]
fn finish_one(sum: i32, step: f32, wscale: f32, bias: f32, epi: Epilogue<'_>, at: usize) -> f32 {
    let y = sum as f32 * (step * wscale) + bias;
    let z = match epi {
        Epilogue::Linear => return y,
        Epilogue::Relu => y,
        Epilogue::AddRelu(skip) => y + skip[at],
    };
    if z > 0.0 { z } else { 0.0 }
}

/// Walks `cout` output channels (a multiple of 8) in chunks of 16 and a last 8:
/// `chunk(o0, wide)` computes channels from `o0` (16 where `wide`, else 8) and returns how
/// many it did. Always inlined, so a kernel's chunk code keeps the kernel's features.
#[inline(always)]
fn each_chunk(cout: usize, mut chunk: impl FnMut(usize, bool) -> usize) {
    let mut o0 = 0;
    while o0 < cout {
        o0 += chunk(o0, cout - o0 >= 16);
    }
}

/// One quantized `k x k` convolution (same geometry as [`Conv`]).
#[derive(Debug, Clone)]
struct QConv {
    cin: usize,
    cout: usize,
    /// Input channels rounded up to a multiple of 4.
    cpad: usize,
    /// `[tap][cpad / 4][out][4]`: for each tap and group of four input channels, one row of
    /// four bytes per output channel (the operand layout of `vpdpbusd`).
    w4: Vec<i8>,
    /// `[tap][cpad / 2][out][2]` as 16-bit values (the operand layout of `vpmaddwd`).
    w2: Vec<i16>,
    /// `[tap][cout / 8]`: bit `p` is set where two neighbouring groups of four input
    /// channels (groups `2p` and `2p + 1`) can be summed in 16 bits for those eight output
    /// channels at 7-bit steps ([`pair_safe`](Self::pair_safe)).
    pair_safe: Vec<u64>,
    /// Per output channel: the float value of one weight step.
    wscale: Vec<f32>,
    bias: Vec<f32>,
    taps: Vec<usize>,
    back: usize,
}

impl QConv {
    fn from_conv(c: &Conv) -> QConv {
        let (cin, cout, k2) = (c.cin, c.cout, c.taps.len());
        let cpad = padded_channels(cin);
        let w = |t: usize, i: usize, o: usize| c.weight[(t * cin + i) * cout + o];
        let wscale: Vec<f32> = (0..cout)
            .map(|o| {
                let max = (0..k2)
                    .flat_map(|t| (0..cin).map(move |i| (t, i)))
                    .map(|(t, i)| w(t, i, o).abs())
                    .fold(0.0f32, f32::max);
                if max > 0.0 { max / 127.0 } else { 1.0 }
            })
            .collect();
        let mut w4 = vec![0i8; k2 * cpad * cout];
        let mut w2 = vec![0i16; k2 * cpad * cout];
        for t in 0..k2 {
            for i in 0..cin {
                for o in 0..cout {
                    let q = (w(t, i, o) / wscale[o])
                        .round_ties_even()
                        .clamp(-127.0, 127.0) as i8;
                    w4[((t * cpad / 4 + i / 4) * cout + o) * 4 + i % 4] = q;
                    w2[((t * cpad / 2 + i / 2) * cout + o) * 2 + i % 2] = i16::from(q);
                }
            }
        }
        let pair_safe = QConv::pair_safe(&w4, k2, cpad, cout);
        QConv {
            cin,
            cout,
            cpad,
            w4,
            w2,
            pair_safe,
            wscale,
            bias: c.bias.clone(),
            taps: c.taps.clone(),
            back: c.back,
        }
    }

    /// For each tap, pair of groups and eight output channels: whether every 16-bit lane of
    /// the two groups' `vpmaddubsw` results added together stays within `i16` for any 7-bit
    /// steps. A lane adds four products `a * w` with `a` in `0..=127`, so its extremes are
    /// 127 x (the sum of its positive weights) and 127 x (the sum of its negative ones).
    /// Known from the weights at load time, so a pair is added in 16 bits only where that
    /// is exact: in the shipped networks 98.6-100% of the lanes are.
    fn pair_safe(w4: &[i8], taps: usize, cpad: usize, cout: usize) -> Vec<u64> {
        let (groups, octets) = (cpad / 4, cout / 8);
        let top = ActSteps::Seven.top();
        let lane_fits = |t: usize, pair: usize, o: usize, half: usize| {
            let (mut pos, mut neg) = (0i32, 0i32);
            for g in [2 * pair, 2 * pair + 1] {
                for j in 0..2 {
                    let w = i32::from(w4[((t * groups + g) * cout + o) * 4 + 2 * half + j]);
                    if w > 0 { pos += w } else { neg -= w }
                }
            }
            pos.max(neg) * top <= i32::from(i16::MAX)
        };
        // At most 64 pairs (512 input channels) are marked; the rest are added one by one.
        let pairs = (groups / 2).min(64);
        let mut safe = Vec::with_capacity(taps * octets);
        for t in 0..taps {
            for octet in 0..octets {
                let fits = |pair: usize| {
                    (octet * 8..octet * 8 + 8)
                        .flat_map(|o| [(o, 0), (o, 1)])
                        .all(|(o, h)| lane_fits(t, pair, o, h))
                };
                safe.push((0..pairs).filter(|&p| fits(p)).fold(0, |m, p| m | 1 << p));
            }
        }
        safe
    }

    /// Quantizes `input` (float, `cin` channels a point) and writes
    /// `epilogue(conv(input))` at `points` of `out` (`cout` channels a point).
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        input: &[f32],
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
        acts: &mut QuantActs,
        kernel: Kernel,
        steps: ActSteps,
    ) {
        let boards = points.last().map_or(0, |&q| q / PP + 1);
        assert!(input.len() >= boards * PP * self.cin && out.len() >= boards * PP * self.cout);
        if let Epilogue::AddRelu(skip) = epi {
            assert!(skip.len() >= boards * PP * self.cout);
        }
        assert!(
            points
                .iter()
                .all(|&q| q % PP >= self.back && q % PP + self.back < PP)
        );
        let kernel = self.usable(kernel);
        quantize(input, self.cin, self.cpad, boards, kernel, steps, acts);
        match kernel {
            Kernel::Portable => self.forward_portable(acts, out, epi, points),
            // SAFETY: `usable` returns these only where the CPU has the features (the kernel
            // came from `best_kernel`, or a test checked them); lengths asserted above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 if reads_words(kernel, steps) => unsafe {
                self.forward_avx2(acts, out, epi, points)
            },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unsafe { self.forward_avx2_bytes(acts, out, epi, points) },
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => unsafe { self.forward_avxvnni(acts, out, epi, points) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => unsafe { self.forward_vnni(acts, out, epi, points) },
        }
    }

    /// `kernel`, or a narrower one where this layer's output channels do not fill its
    /// registers (VNNI needs a multiple of 16, AVX-VNNI and AVX2 of 8).
    fn usable(&self, kernel: Kernel) -> Kernel {
        match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni if self.cout.is_multiple_of(16) => Kernel::Vnni,
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni if self.cout.is_multiple_of(8) => Kernel::AvxVnni,
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni | Kernel::Avx2 if self.cout.is_multiple_of(8) => Kernel::Avx2,
            _ => Kernel::Portable,
        }
    }

    /// Any CPU: one point at a time, zero activations skipped.
    fn forward_portable(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let (cpad, cout) = (self.cpad, self.cout);
        let mut sums = vec![0i32; cout];
        for &q in points {
            sums.fill(0);
            let corner = q - self.back;
            for (t, &tap) in self.taps.iter().enumerate() {
                let at = corner + tap;
                let x = &acts.bytes[at * cpad..(at + 1) * cpad];
                for (i, &xv) in x.iter().enumerate() {
                    if xv == 0 {
                        continue;
                    }
                    let row = &self.w4[(t * cpad / 4 + i / 4) * cout * 4..];
                    for (o, s) in sums.iter_mut().enumerate() {
                        *s += i32::from(xv) * i32::from(row[o * 4 + i % 4]);
                    }
                }
            }
            let step = acts.scales[q / PP];
            for (o, &s) in sums.iter().enumerate() {
                let at = q * cout + o;
                out[at] = finish_one(s, step, self.wscale[o], self.bias[o], epi, at);
            }
        }
    }

    /// AVX2: `vpmaddwd` on pairs of input channels, output channels in chunks of up to 32
    /// (four 8-lane registers), two points per pass.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn forward_avx2(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let mut o0 = 0;
        while o0 < self.cout {
            // SAFETY (all four): AVX2 present (caller), chunk inside `cout`.
            o0 += match (self.cout - o0) / 8 {
                1 => unsafe { self.chunk_avx2::<1>(acts, out, epi, o0, points) },
                2 => unsafe { self.chunk_avx2::<2>(acts, out, epi, o0, points) },
                3 => unsafe { self.chunk_avx2::<3>(acts, out, epi, o0, points) },
                _ => unsafe { self.chunk_avx2::<4>(acts, out, epi, o0, points) },
            };
        }
    }

    /// Output channels `o0..o0 + 8 * V` of every point; returns `8 * V`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn chunk_avx2<const V: usize>(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        o0: usize,
        points: &[usize],
    ) -> usize {
        use std::arch::x86_64::*;
        const R: usize = 2;
        let (cpad, cout) = (self.cpad, self.cout);
        let pairs = cpad / 2;
        let n = points.len();
        // SAFETY (pointer arithmetic below): every window point of every listed point lies in
        // its board's padded square (asserted by `forward`), and `quantize` sized `words` to
        // `boards * 121 * cpad`; weight reads stay within `[tap][pair][o0..o0 + 8V][2]`.
        let x = acts.words.as_ptr();
        let wbase = unsafe { self.w2.as_ptr().add(o0 * 2) };
        let mut k = 0;
        while k < n {
            let q: [usize; R] = std::array::from_fn(|r| points[(k + r).min(n - 1)]);
            let mut acc = [[_mm256_setzero_si256(); V]; R];
            for (t, &tap) in self.taps.iter().enumerate() {
                let xr: [*const u16; R] =
                    std::array::from_fn(|r| unsafe { x.add((q[r] - self.back + tap) * cpad) });
                let wt = unsafe { wbase.add(t * pairs * cout * 2) };
                for p in 0..pairs {
                    let w = unsafe { wt.add(p * cout * 2) };
                    let wv: [__m256i; V] = std::array::from_fn(|v| unsafe {
                        _mm256_loadu_si256(w.add(16 * v) as *const __m256i)
                    });
                    for r in 0..R {
                        let pair = unsafe { (xr[r].add(2 * p) as *const i32).read_unaligned() };
                        let b = _mm256_set1_epi32(pair);
                        for v in 0..V {
                            acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(b, wv[v]));
                        }
                    }
                }
            }
            for r in 0..R.min(n - k) {
                for (v, &sum) in acc[r].iter().enumerate() {
                    // SAFETY: `q[r]` is a listed point and `o0 + 8v + 8 <= cout`.
                    unsafe { self.finish_avx2(sum, acts, out, epi, q[r], o0 + 8 * v) };
                }
            }
            k += R;
        }
        8 * V
    }

    /// Eight output channels `o..o + 8` of point `q` from their integer sums: the
    /// operations of [`finish_one`], eight lanes at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn finish_avx2(
        &self,
        sum: std::arch::x86_64::__m256i,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        q: usize,
        o: usize,
    ) {
        use std::arch::x86_64::*;
        let at = q * self.cout + o;
        // SAFETY (reads and the write): the caller keeps `o + 8 <= cout` and `q` inside the
        // boards that `out` and `skip` hold (asserted by `forward`).
        let step = _mm256_set1_ps(acts.scales[q / PP]);
        let ws = unsafe { _mm256_loadu_ps(self.wscale.as_ptr().add(o)) };
        let bias = unsafe { _mm256_loadu_ps(self.bias.as_ptr().add(o)) };
        let y = _mm256_add_ps(
            _mm256_mul_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(step, ws)),
            bias,
        );
        let z = match epi {
            Epilogue::Linear => y,
            Epilogue::Relu => _mm256_max_ps(y, _mm256_setzero_ps()),
            Epilogue::AddRelu(skip) => _mm256_max_ps(
                _mm256_add_ps(y, unsafe { _mm256_loadu_ps(skip.as_ptr().add(at)) }),
                _mm256_setzero_ps(),
            ),
        };
        unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(at), z) };
    }

    /// AVX-VNNI: `vpdpbusd` on 256-bit registers, on the VNNI kernel's bytes and weight
    /// layout (eight output channels of four bytes a register). Sized for 16 ymm
    /// registers: `R` points x `V` output-channel vectors of sums, `V` weight vectors and one
    /// broadcast activation.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avxvnni")]
    unsafe fn forward_avxvnni(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        use std::arch::x86_64::*;
        let dot = |acc, b, w| _mm256_dpbusd_avx_epi32(acc, b, w);
        // Never called: AVX-VNNI takes every group alone.
        let dot2 = |acc, _, _, _, _| acc;
        // SAFETY (both): AVX-VNNI present (caller), chunk inside `cout`.
        each_chunk(self.cout, |o0, wide| unsafe {
            if wide {
                self.chunk_bytes256::<2, 6, false>(acts, out, epi, o0, points, dot, dot2)
            } else {
                self.chunk_bytes256::<1, 12, false>(acts, out, epi, o0, points, dot, dot2)
            }
        });
    }

    /// AVX2 on 7-bit steps: `vpmaddubsw` multiplies the bytes in pairs into 16-bit sums,
    /// which 7-bit steps cannot overflow ([`ActSteps`]), and `vpmaddwd` against ones adds
    /// those pairs into the 32-bit sums: exactly what `vpdpbusd` computes, on the same bytes
    /// and weight layout. Where [`pair_safe`](Self::pair_safe) shows that two groups' 16-bit
    /// sums cannot overflow when added, they are added before the one `vpmaddwd` (5
    /// instructions for 64 products instead of 6), as Stockfish's NNUE does on AVX2; the
    /// sums stay exact either way.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn forward_avx2_bytes(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        use std::arch::x86_64::*;
        let ones = _mm256_set1_epi16(1);
        let dot =
            |acc, b, w| _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(b, w), ones));
        let dot2 = |acc, b, w, b2, w2| {
            let both = _mm256_add_epi16(_mm256_maddubs_epi16(b, w), _mm256_maddubs_epi16(b2, w2));
            _mm256_add_epi32(acc, _mm256_madd_epi16(both, ones))
        };
        // SAFETY (both): AVX2 present (caller), chunk inside `cout`.
        each_chunk(self.cout, |o0, wide| unsafe {
            if wide {
                self.chunk_bytes256::<2, 4, true>(acts, out, epi, o0, points, dot, dot2)
            } else {
                self.chunk_bytes256::<1, 8, true>(acts, out, epi, o0, points, dot, dot2)
            }
        });
    }

    /// The pairs of groups of tap `t` (bit `p`: groups `2p` and `2p + 1`) that can be
    /// summed in 16 bits for all `v` registers of eight output channels from `o0` (see
    /// [`pair_safe`](Self::pair_safe)).
    #[inline(always)]
    fn pairs_fit(&self, t: usize, o0: usize, v: usize) -> u64 {
        let at = t * (self.cout / 8) + o0 / 8;
        self.pair_safe[at..at + v].iter().fold(!0, |m, &b| m & b)
    }

    /// Output channels `o0..o0 + 8 * V` of every point, `R` points a pass, on 256-bit
    /// registers of bytes: `dot(sums, four activation bytes broadcast, weights)` adds each
    /// lane's four byte products to its sum; with `PAIRED`, `dot2` adds two groups' eight
    /// where [`pairs_fit`](Self::pairs_fit) allows. Returns `8 * V`. Always inlined into
    /// its callers, so it is compiled with their features and each `dot` is a few
    /// instructions.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn chunk_bytes256<const V: usize, const R: usize, const PAIRED: bool>(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        o0: usize,
        points: &[usize],
        dot: impl Fn(
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
        ) -> std::arch::x86_64::__m256i,
        dot2: impl Fn(
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
            std::arch::x86_64::__m256i,
        ) -> std::arch::x86_64::__m256i,
    ) -> usize {
        use std::arch::x86_64::*;
        let (cpad, cout) = (self.cpad, self.cout);
        let groups = cpad / 4;
        let n = points.len();
        // SAFETY (pointer arithmetic below): as in `chunk_vnni`, with weight reads within
        // `[tap][group][o0..o0 + 8V][4]`.
        let x = acts.bytes.as_ptr();
        let wbase = unsafe { self.w4.as_ptr().add(o0 * 4) };
        let weights = |w: *const i8| -> [__m256i; V] {
            std::array::from_fn(|v| unsafe { _mm256_loadu_si256(w.add(32 * v) as *const __m256i) })
        };
        let four = |xr: *const u8, g: usize| unsafe {
            _mm256_set1_epi32((xr.add(4 * g) as *const i32).read_unaligned())
        };
        let mut k = 0;
        while k < n {
            let q: [usize; R] = std::array::from_fn(|r| points[(k + r).min(n - 1)]);
            let mut acc = [[unsafe { _mm256_setzero_si256() }; V]; R];
            for (t, &tap) in self.taps.iter().enumerate() {
                let xr: [*const u8; R] =
                    std::array::from_fn(|r| unsafe { x.add((q[r] - self.back + tap) * cpad) });
                let wt = unsafe { wbase.add(t * groups * cout * 4) };
                // Pairs only where every pair of the tap fits: a tight loop without a
                // branch per pair; a tap with any unfit pair takes its groups one by one.
                // (A loop over the fitting pairs' bits and then the others ran 1.4x slower
                // than this, though it pairs more.)
                let pairs = groups / 2;
                let paired = PAIRED && pairs <= 64 && {
                    let all = if pairs == 64 { !0 } else { (1u64 << pairs) - 1 };
                    self.pairs_fit(t, o0, V) & all == all
                };
                let single_from = if paired {
                    for p in 0..pairs {
                        let w = unsafe { wt.add(2 * p * cout * 4) };
                        let (wv, wv2) = (weights(w), weights(unsafe { w.add(cout * 4) }));
                        for r in 0..R {
                            let (b, b2) = (four(xr[r], 2 * p), four(xr[r], 2 * p + 1));
                            for v in 0..V {
                                acc[r][v] = dot2(acc[r][v], b, wv[v], b2, wv2[v]);
                            }
                        }
                    }
                    2 * pairs
                } else {
                    0
                };
                for g in single_from..groups {
                    let wv = weights(unsafe { wt.add(g * cout * 4) });
                    for r in 0..R {
                        let b = four(xr[r], g);
                        for v in 0..V {
                            acc[r][v] = dot(acc[r][v], b, wv[v]);
                        }
                    }
                }
            }
            for r in 0..R.min(n - k) {
                for (v, &sum) in acc[r].iter().enumerate() {
                    // SAFETY: `q[r]` is a listed point and `o0 + 8v + 8 <= cout`.
                    unsafe { self.finish_avx2(sum, acts, out, epi, q[r], o0 + 8 * v) };
                }
            }
            k += R;
        }
        8 * V
    }

    /// AVX-512 VNNI: `vpdpbusd` on groups of four input channels, output channels in chunks
    /// of 16 or 32, nine points per pass (a board's 81 points are nine whole passes).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn forward_vnni(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        points: &[usize],
    ) {
        let mut o0 = 0;
        while o0 < self.cout {
            // SAFETY (both): VNNI present (caller), chunk inside `cout`.
            o0 += if self.cout - o0 >= 32 {
                unsafe { self.chunk_vnni::<2>(acts, out, epi, o0, points) }
            } else {
                unsafe { self.chunk_vnni::<1>(acts, out, epi, o0, points) }
            };
        }
    }

    /// Output channels `o0..o0 + 16 * V` of every point; returns `16 * V`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn chunk_vnni<const V: usize>(
        &self,
        acts: &QuantActs,
        out: &mut [f32],
        epi: Epilogue<'_>,
        o0: usize,
        points: &[usize],
    ) -> usize {
        use std::arch::x86_64::*;
        const R: usize = 9;
        let (cpad, cout) = (self.cpad, self.cout);
        let groups = cpad / 4;
        let n = points.len();
        // SAFETY (pointer arithmetic below): as in `chunk_avx2`, with `bytes` sized by
        // `quantize` and weight reads within `[tap][group][o0..o0 + 16V][4]`.
        let x = acts.bytes.as_ptr();
        let wbase = unsafe { self.w4.as_ptr().add(o0 * 4) };
        let mut k = 0;
        while k < n {
            let q: [usize; R] = std::array::from_fn(|r| points[(k + r).min(n - 1)]);
            let mut acc = [[_mm512_setzero_si512(); V]; R];
            for (t, &tap) in self.taps.iter().enumerate() {
                let xr: [*const u8; R] =
                    std::array::from_fn(|r| unsafe { x.add((q[r] - self.back + tap) * cpad) });
                let wt = unsafe { wbase.add(t * groups * cout * 4) };
                for g in 0..groups {
                    let w = unsafe { wt.add(g * cout * 4) };
                    let wv: [__m512i; V] = std::array::from_fn(|v| unsafe {
                        _mm512_loadu_si512(w.add(64 * v) as *const __m512i)
                    });
                    for r in 0..R {
                        let four = unsafe { (xr[r].add(4 * g) as *const i32).read_unaligned() };
                        let b = _mm512_set1_epi32(four);
                        for v in 0..V {
                            acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], b, wv[v]);
                        }
                    }
                }
            }
            for r in 0..R.min(n - k) {
                let step = _mm512_set1_ps(acts.scales[q[r] / PP]);
                for (v, &sum) in acc[r].iter().enumerate() {
                    let o = o0 + 16 * v;
                    let at = q[r] * cout + o;
                    let ws = unsafe { _mm512_loadu_ps(self.wscale.as_ptr().add(o)) };
                    let bias = unsafe { _mm512_loadu_ps(self.bias.as_ptr().add(o)) };
                    let y = _mm512_add_ps(
                        _mm512_mul_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(step, ws)),
                        bias,
                    );
                    let z = match epi {
                        Epilogue::Linear => y,
                        Epilogue::Relu => _mm512_max_ps(y, _mm512_setzero_ps()),
                        Epilogue::AddRelu(skip) => _mm512_max_ps(
                            _mm512_add_ps(y, unsafe { _mm512_loadu_ps(skip.as_ptr().add(at)) }),
                            _mm512_setzero_ps(),
                        ),
                    };
                    unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(at), z) };
                }
            }
            k += R;
        }
        16 * V
    }
}

/// A trained CNN evaluated with 8-bit integer convolutions (see the module doc).
#[derive(Debug, Clone)]
pub struct QuantCnn {
    /// The float network: input packing and the move head.
    plain: PlainCnn,
    /// How finely the tower's activations are stepped.
    steps: ActSteps,
    stem: QConv,
    blocks: Vec<(QConv, QConv)>,
}

impl QuantCnn {
    /// Quantizes the tower's weights of a float network, its activations in 8-bit steps.
    pub fn from_plain(plain: &PlainCnn) -> QuantCnn {
        QuantCnn::with_steps(plain, ActSteps::Eight)
    }

    /// Quantizes the tower's weights of a float network, its activations in `steps`.
    pub fn with_steps(plain: &PlainCnn, steps: ActSteps) -> QuantCnn {
        QuantCnn {
            steps,
            stem: QConv::from_conv(&plain.stem),
            blocks: plain
                .blocks
                .iter()
                .map(|(a, b)| (QConv::from_conv(a), QConv::from_conv(b)))
                .collect(),
            plain: plain.clone(),
        }
    }

    /// Move logits of one position (planes as [`PlainCnn::logits`] takes them).
    pub fn logits(&self, planes: &[f32], scratch: &mut Scratch, out: &mut [f32; NN]) {
        self.logits_batch(planes, 1, scratch, out);
    }

    /// Move logits of `n` positions (as [`PlainCnn::logits_batch`]); each board has its own
    /// activation steps, so a position gets the same logits alone or in a batch.
    pub fn logits_batch(&self, planes: &[f32], n: usize, scratch: &mut Scratch, out: &mut [f32]) {
        self.evaluate_batch(planes, n, scratch, out, None);
    }

    /// [`logits_batch`](Self::logits_batch) with the value head's win logits (as
    /// [`PlainCnn::evaluate_batch`]; the head itself runs in float).
    pub fn evaluate_batch(
        &self,
        planes: &[f32],
        n: usize,
        scratch: &mut Scratch,
        out: &mut [f32],
        values: Option<&mut [f32]>,
    ) {
        self.logits_with(best_kernel(), planes, n, scratch, out, values);
    }

    /// Whether the network has a value head.
    pub fn has_value(&self) -> bool {
        self.plain.has_value()
    }

    /// How finely its activations are stepped.
    pub fn steps(&self) -> ActSteps {
        self.steps
    }

    /// The score head's lead for one position ([`PlainCnn::score_lead`], in float).
    pub fn score_lead(&self, planes: &[f32], scratch: &mut Scratch) -> Option<f32> {
        self.plain.score_lead(planes, scratch)
    }

    /// The ownership head's answer for one position ([`PlainCnn::ownership`], in float).
    pub fn ownership(&self, planes: &[f32], scratch: &mut Scratch) -> Option<[f32; NN]> {
        self.plain.ownership(planes, scratch)
    }

    fn logits_with(
        &self,
        kernel: Kernel,
        planes: &[f32],
        n: usize,
        scratch: &mut Scratch,
        out: &mut [f32],
        values: Option<&mut [f32]>,
    ) {
        assert!(out.len() >= n * NN);
        self.plain.prepare(planes, n, scratch);
        let Scratch {
            a,
            b,
            c: t,
            d: x,
            points,
            quant,
            ..
        } = scratch;
        // As in `PlainCnn::logits_batch`: `b` the running activation, `t` the block's middle.
        let steps = self.steps;
        self.stem
            .forward(x, b, Epilogue::Relu, points, quant, kernel, steps);
        for (c1, c2) in &self.blocks {
            c1.forward(b, t, Epilogue::Relu, points, quant, kernel, steps);
            c2.forward(t, a, Epilogue::AddRelu(b), points, quant, kernel, steps);
            std::mem::swap(a, b);
        }
        self.plain.heads(scratch, n, out, values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::inference::cnn::CnnConfig;
    use crate::net::inference::encode::CNN_PLANES;
    use crate::net::inference::encode::{NetInput, cnn_planes};

    /// Every kernel this CPU has, the portable one first.
    fn kernels() -> Vec<Kernel> {
        #[allow(unused_mut)]
        let mut k = vec![Kernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                k.push(Kernel::Avx2);
                if std::arch::is_x86_feature_detected!("avxvnni") {
                    k.push(Kernel::AvxVnni);
                }
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                k.push(Kernel::Vnni);
            }
        }
        k
    }

    /// `AKUSHU_REQUIRE_SIMD=avx2,avx512,avxvnni,vnni` (any of them; `.ci/run` names what its CPU's
    /// flags in /proc/cpuinfo show): each kernel named must be the one this build detects,
    /// so the kernel tests above cannot skip it silently on a machine that has it.
    #[test]
    fn the_simd_kernels_required_are_detected() {
        let Ok(list) = std::env::var("AKUSHU_REQUIRE_SIMD") else {
            eprintln!("AKUSHU_REQUIRE_SIMD unset: kernels found {:?}", kernels());
            return;
        };
        let found = kernels();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let ok = match name {
                "avx2" => {
                    found.contains(&Kernel::Avx2) && crate::net::inference::plain::has_avx2_fma()
                }
                "avx512" => crate::net::inference::plain::has_avx512(),
                "avxvnni" => found.contains(&Kernel::AvxVnni),
                "vnni" => found.contains(&Kernel::Vnni),
                other => panic!(
                    "AKUSHU_REQUIRE_SIMD: unknown kernel `{other}` (avx2, avx512, avxvnni, vnni)"
                ),
            };
            assert!(
                ok,
                "AKUSHU_REQUIRE_SIMD names {name}, which this build does not detect"
            );
        }
    }

    /// What benchmarks print is the kernel that runs: one this CPU has, each kernel with
    /// its own name, and a pruner names the 8-bit or float kernel of its own network.
    #[test]
    fn the_kernel_named_is_the_one_that_runs() {
        let names: Vec<&str> = kernels().iter().map(|k| k.name()).collect();
        assert!(
            names.contains(&kernel_name()),
            "{} is not among {names:?}",
            kernel_name()
        );
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn-human-5x32-gpu2");
        let quantized = crate::net::NetPruner::load_quantized(&dir).unwrap();
        assert_eq!(quantized.kernel(), format!("8-bit {}", kernel_name()));
        let float = crate::net::NetPruner::load(&dir).unwrap();
        assert_eq!(
            float.kernel(),
            format!(
                "float {}",
                crate::net::inference::plain::float_kernel_name()
            )
        );
    }

    /// Planes of `n` positions of a seeded random game.
    fn planes(n: usize, seed: u64) -> Vec<f32> {
        let positions = crate::net::training::synthetic::random_game_positions(2, seed);
        let mut planes = vec![0f32; n * CNN_PLANES * NN];
        for (pos, row) in positions
            .iter()
            .step_by(5)
            .cycle()
            .zip(planes.chunks_mut(CNN_PLANES * NN))
        {
            cnn_planes(&NetInput::from_position(pos, &pos.board()), row);
        }
        planes
    }

    const BOTH_STEPS: [ActSteps; 2] = [ActSteps::Eight, ActSteps::Seven];

    #[test]
    fn every_kernel_gives_the_same_logits_to_the_bit() {
        let shapes = [(2, 32), (1, 48), (1, 64), (1, 12)];
        for ((blocks, channels), steps) in shapes
            .into_iter()
            .flat_map(|s| BOTH_STEPS.map(|st| (s, st)))
        {
            let m = CnnConfig::new()
                .with_blocks(blocks)
                .with_channels(channels)
                .init(&crate::net::cpu_device());
            let q = QuantCnn::with_steps(&PlainCnn::from_burn(&m), steps);
            let n = 6;
            let input = planes(n, 11);
            let mut want = vec![0f32; n * NN];
            q.logits_with(
                Kernel::Portable,
                &input,
                n,
                &mut Scratch::default(),
                &mut want,
                None,
            );
            for k in kernels() {
                let mut got = vec![0f32; n * NN];
                q.logits_with(k, &input, n, &mut Scratch::default(), &mut got, None);
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(
                    same,
                    "{blocks}x{channels}, {steps:?}: {k:?} differs from the portable kernel"
                );
            }
        }
    }

    /// The float network the engines ship with (`models/cnn-human-5x32-gpu2`).
    fn shipped_network() -> PlainCnn {
        use crate::net::inference::model::SavedModel;
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cnn-human-5x32-gpu2");
        let (SavedModel::Cnn(m, _), _) = SavedModel::load(&dir).unwrap() else {
            panic!("{} is a CNN", dir.display());
        };
        PlainCnn::from_burn(&m)
    }

    /// The 6x64 network `strong8` runs (`models/cnn-distilled-b6c96-6x64-cosine3`).
    fn strong_network() -> PlainCnn {
        use crate::net::inference::model::SavedModel;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("models/cnn-distilled-b6c96-6x64-cosine3");
        let (SavedModel::Cnn(m, _), _) = SavedModel::load(&dir).unwrap() else {
            panic!("{} is a CNN", dir.display());
        };
        PlainCnn::from_burn(&m)
    }

    /// Every convolution of a network's tower, the stem first.
    fn tower(plain: &PlainCnn) -> Vec<Conv> {
        let mut layers = vec![plain.stem.clone()];
        layers.extend(
            plain
                .blocks
                .iter()
                .flat_map(|(a, b)| [a.clone(), b.clone()]),
        );
        layers
    }

    /// The integer sums are exact, so every kernel must give the same outputs to the bit:
    /// on the layers of both shipped networks (5x32 and 6x64) and on one whose weights all
    /// quantize to +-127 in
    /// pairs of one sign (where a 16-bit sum of two byte products overflows), fed steps over
    /// the whole 0..=255 range, many of them 128 or more (so a kernel that saturated would
    /// show), and one board at the largest step everywhere.
    #[test]
    fn every_kernel_sums_real_and_extreme_layers_exactly() {
        use crate::util::rng::FastRng;
        let plain = shipped_network();
        let mut layers = tower(&plain);
        layers.extend(tower(&strong_network()));
        let mut extreme = plain.blocks[0].0.clone();
        let (cin, cout) = (extreme.cin, extreme.cout);
        for (k, w) in extreme.weight.iter_mut().enumerate() {
            let (i, o) = (k / cout % cin, k % cout);
            *w = if (i / 2 + o) % 2 == 0 { 1.0 } else { -1.0 };
        }
        layers.push(extreme);
        let n = 4;
        let points: Vec<usize> = (0..n)
            .flat_map(|b| INTERIOR.iter().map(move |&q| b * PP + q))
            .collect();
        let mut rng = FastRng::new(15);
        let cases = layers
            .iter()
            .enumerate()
            .flat_map(|l| BOTH_STEPS.map(|s| (l, s)));
        for ((l, conv), steps) in cases {
            let q = QConv::from_conv(conv);
            if l == layers.len() - 1 {
                assert!(q.w4.contains(&127) && q.w4.contains(&-127));
            }
            // Board 0 at the largest step everywhere; the others a third zeros, a third at
            // the largest value, a third anywhere between.
            let mut input = vec![0f32; n * PP * conv.cin];
            for &p in &points {
                for v in &mut input[p * conv.cin..(p + 1) * conv.cin] {
                    *v = match (p / PP, rng.below(3)) {
                        (0, _) | (_, 1) => 2.0,
                        (_, 0) => 0.0,
                        _ => 2.0 * rng.unit() as f32,
                    };
                }
            }
            let forward = |kernel: Kernel| {
                let mut out = vec![0f32; n * PP * conv.cout];
                let mut acts = QuantActs::default();
                q.forward(
                    &input,
                    &mut out,
                    Epilogue::Linear,
                    &points,
                    &mut acts,
                    kernel,
                    steps,
                );
                (out, acts)
            };
            let (want, acts) = forward(Kernel::Portable);
            let half = (steps.top() + 1) / 2;
            let high = acts.bytes.iter().filter(|&&b| i32::from(b) >= half).count();
            // Half the interior steps or more are in the upper half of the range (128 and up
            // for 8 bits, 64 and up for 7): a third of all bytes at least; none above the top.
            assert!(
                3 * high >= acts.bytes.len(),
                "layer {l}, {steps:?}: {high} steps of {half} and up"
            );
            assert!(acts.bytes.iter().all(|&b| i32::from(b) <= steps.top()));
            for k in kernels() {
                let (got, _) = forward(k);
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(
                    same,
                    "layer {l}, {steps:?}: {k:?} differs from the portable kernel"
                );
            }
        }
    }

    /// The exactness test above runs the 7-bit AVX2 kernel's both paths on real weights:
    /// the shipped networks (5x32 and 6x64) have taps whose every pair of groups fits in 16 bits (added
    /// before widening) and taps with a pair that does not (taken group by group), and the
    /// extreme layer's pairs never fit.
    #[test]
    fn real_layers_take_both_the_paired_and_the_single_path() {
        let plain = shipped_network();
        let strong = strong_network();
        let (mut full, mut partial) = (0, 0);
        for (a, b) in plain.blocks.iter().chain(&strong.blocks) {
            for conv in [a, b] {
                let q = QConv::from_conv(conv);
                let all = (1u64 << (q.cpad / 8)) - 1;
                for t in 0..q.taps.len() {
                    for o0 in (0..q.cout).step_by(16) {
                        if q.pairs_fit(t, o0, 2) & all == all {
                            full += 1;
                        } else {
                            partial += 1;
                        }
                    }
                }
            }
        }
        assert!(full > 0 && partial > 0, "{full} paired, {partial} single");
        let mut extreme = plain.blocks[0].0.clone();
        extreme.weight.iter_mut().for_each(|w| *w = 1.0);
        let q = QConv::from_conv(&extreme);
        assert!(q.pair_safe.iter().all(|&m| m == 0));
    }

    #[test]
    fn a_batch_gives_each_position_its_own_logits_exactly() {
        let m = CnnConfig::new()
            .with_blocks(2)
            .with_channels(32)
            .init(&crate::net::cpu_device());
        let q = QuantCnn::from_plain(&PlainCnn::from_burn(&m));
        let n = 5;
        let input = planes(n, 12);
        let mut batch = vec![0f32; n * NN];
        q.logits_batch(&input, n, &mut Scratch::default(), &mut batch);
        let mut scratch = Scratch::default();
        for (i, row) in input.chunks(CNN_PLANES * NN).enumerate() {
            let mut one = [0f32; NN];
            q.logits(row, &mut scratch, &mut one);
            assert_eq!(&one[..], &batch[i * NN..(i + 1) * NN], "position {i}");
        }
    }

    #[test]
    fn quantized_logits_stay_close_to_the_float_network() {
        let m = CnnConfig::new()
            .with_blocks(3)
            .with_channels(32)
            .init(&crate::net::cpu_device());
        let plain = PlainCnn::from_burn(&m);
        let q = QuantCnn::from_plain(&plain);
        let n = 8;
        let input = planes(n, 13);
        let (mut f, mut g) = (vec![0f32; n * NN], vec![0f32; n * NN]);
        plain.logits_batch(&input, n, &mut Scratch::default(), &mut f);
        q.logits_batch(&input, n, &mut Scratch::default(), &mut g);
        let spread = f.iter().fold(0f32, |m, v| m.max(v.abs()));
        let worst = f
            .iter()
            .zip(&g)
            .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(spread > 0.0);
        assert!(
            worst <= 0.05 * spread,
            "worst difference {worst} against logits up to {spread}"
        );
        assert!(f != g, "8-bit rounding must show somewhere");
    }

    #[test]
    fn the_shipped_network_ranks_moves_as_its_float_pass_does() {
        let plain = shipped_network();
        let q = QuantCnn::from_plain(&plain);
        let n = 40;
        let input = planes(n, 14);
        let (mut f, mut g) = (vec![0f32; n * NN], vec![0f32; n * NN]);
        plain.logits_batch(&input, n, &mut Scratch::default(), &mut f);
        q.logits_batch(&input, n, &mut Scratch::default(), &mut g);
        let best = |v: &[f32]| (0..NN).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
        let same = (0..n)
            .filter(|&i| best(&f[i * NN..(i + 1) * NN]) == best(&g[i * NN..(i + 1) * NN]))
            .count();
        assert!(
            same >= n * 9 / 10,
            "same best move in {same} of {n} positions"
        );
        let worst = f
            .iter()
            .zip(&g)
            .fold(0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(worst < 0.5, "largest logit difference {worst}");
    }

    #[test]
    fn quantize_rounds_to_the_nearest_step_and_zeroes_the_padding() {
        let c = 3;
        let mut src = vec![0f32; PP * c];
        let q = INTERIOR[40];
        src[q * c..q * c + c].copy_from_slice(&[2.0, 1.0, 0.004]);
        let mut acts = QuantActs::default();
        quantize(&src, c, 4, 1, Kernel::Portable, ActSteps::Eight, &mut acts);
        assert_eq!(acts.scales[0], 2.0 / 255.0);
        // 1.0 is 127.5 steps: ties go to even; 0.004 is 0.51 of a step.
        assert_eq!(&acts.bytes[q * 4..q * 4 + 4], &[255, 128, 1, 0]);
        assert_eq!(
            acts.bytes.iter().map(|&b| u32::from(b)).sum::<u32>(),
            255 + 128 + 1
        );
        // In 7-bit steps 2.0 is step 127, 1.0 is 63.5 (ties to even: 64), 0.004 is 0.254.
        quantize(&src, c, 4, 1, Kernel::Portable, ActSteps::Seven, &mut acts);
        assert_eq!(acts.scales[0], 2.0 / 127.0);
        assert_eq!(&acts.bytes[q * 4..q * 4 + 4], &[127, 64, 0, 0]);
    }
}
