//! Random sequences of C-ABI calls (`tests/sequences`), from fixed seeds: no call panics,
//! poisons a world, or changes anything when it fails, and every successful step leaves the
//! poses finite. The same interpreter is the fuzz target `c_abi` (`fuzz/`).

mod sequences;

/// xorshift64*: the bytes of one sequence.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

#[test]
fn random_call_sequences_keep_the_c_abi_promises() {
    for seed in 0..2000 {
        let input = bytes(seed, 3000);
        if let Err(e) = sequences::run(&input) {
            panic!("seed {seed}: {e}");
        }
    }
}
