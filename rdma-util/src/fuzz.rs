//! A small, seeded source of hostile input for the parser tests: random
//! bytes and random mutations of valid input, reproducible from a seed.
//!
//! The parsers that read what comes from outside the process (netlink
//! replies, sysfs and /etc files, environment values, peer messages) are
//! driven with it by each crate's tests: in the CI tier with a fixed seed
//! and a few thousand cases, by hand for longer:
//!
//!   RDMA_FUZZ_CASES=1000000 RDMA_FUZZ_SEED=7 cargo test fuzz
//!
//! A failing case prints its seed and number, so it can be replayed.

/// xorshift64*: fast, and good enough to pick bytes and positions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced: xorshift would stay at 0).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in 0..n (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// `len` random bytes, biased towards the values parsers treat
    /// specially (0, 0xff, '\n', ' ', digits, ':').
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        const SPECIAL: &[u8] = b"\0\xff\n \t:-+0123456789x#";
        (0..len)
            .map(|_| if self.below(3) == 0 { SPECIAL[self.below(SPECIAL.len())] } else { self.next_u64() as u8 })
            .collect()
    }

    /// A copy of `valid` with 1 to 4 random edits: a byte changed, bytes
    /// inserted or removed, a tail cut off, a little-endian length field
    /// set to an edge value.
    pub fn mutate(&mut self, valid: &[u8]) -> Vec<u8> {
        let mut v = valid.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(v.len() + 1);
            match self.below(6) {
                0 if !v.is_empty() => {
                    let i = self.below(v.len());
                    v[i] = self.next_u64() as u8;
                }
                1 => {
                    let n = 1 + self.below(8);
                    let extra = self.bytes(n);
                    v.splice(at..at, extra);
                }
                2 if at < v.len() => {
                    let cut = self.below(v.len() - at + 1);
                    v.drain(at..at + cut);
                }
                3 => v.truncate(at),
                4 if at + 2 <= v.len() => {
                    let edge = [0u16, 1, 3, 4, 0xffff, 0x8000][self.below(6)];
                    v[at..at + 2].copy_from_slice(&edge.to_ne_bytes());
                }
                _ if at + 4 <= v.len() => {
                    let edge = [0u32, 1, 15, 16, u32::MAX, 0x7fff_ffff][self.below(6)];
                    v[at..at + 4].copy_from_slice(&edge.to_ne_bytes());
                }
                _ => {}
            }
        }
        v
    }
}

/// The number of cases a fuzz test runs: $RDMA_FUZZ_CASES, else `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("RDMA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The seed: $RDMA_FUZZ_SEED, else a fixed one (the CI tier's).
pub fn seed() -> u64 {
    std::env::var("RDMA_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_0fc0_ffee)
}

/// Runs `check` on `cases()` inputs made by `make`; a panic names the seed
/// and the case, so that it can be replayed.
pub fn run<T: std::fmt::Debug>(name: &str, default_cases: usize, mut make: impl FnMut(&mut Rng) -> T, mut check: impl FnMut(&T)) {
    let seed = seed();
    let mut rng = Rng::new(seed);
    for case in 0..cases(default_cases) {
        let input = make(&mut rng);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)));
        if r.is_err() {
            panic!("fuzz {name}: case {case} (RDMA_FUZZ_SEED={seed}) failed on input {input:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_varied() {
        let a: Vec<u64> = (0..4).map({ let mut r = Rng::new(5); move |_| r.next_u64() }).collect();
        let b: Vec<u64> = (0..4).map({ let mut r = Rng::new(5); move |_| r.next_u64() }).collect();
        assert_eq!(a, b);
        assert!(a.windows(2).all(|w| w[0] != w[1]));
        let mut r = Rng::new(1);
        let base = b"driver rxe\n".to_vec();
        assert!((0..50).any(|_| r.mutate(&base) != base));
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
