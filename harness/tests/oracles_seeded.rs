//! Every oracle over seeded generator inputs (the property-test bridge):
//! no oracle reports a disagreement on the current emulator, and the legal
//! outcomes are counted. Set `ORACLE_SEEDS` to run more.

use tensix_harness::generators::program::{PackProgram, UnpackProgram};
use tensix_harness::generators::tile::{PackTileCase, RoundTripCase, UnpackTileCase};
use tensix_harness::generators::vectors::AnyVector;
use tensix_harness::generators::{from_seed, seeded_bytes, IsaCase};
use tensix_harness::oracles::{self, Tally};

fn seeds() -> u64 {
    std::env::var("ORACLE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

fn tally<T>(name: &str, len: usize, check: impl Fn(&T) -> oracles::Verdict) -> Tally
where
    T: for<'a> arbitrary::Arbitrary<'a>,
{
    let mut t = Tally::default();
    for seed in 0..seeds() {
        let case: T = from_seed(seed, len);
        t.add(&check(&case));
    }
    eprintln!("{name}: {t}");
    assert_eq!(t.total() as u64, seeds());
    t
}

/// The tile oracles generate jobs the golden model covers, so most seeds
/// must reach a real comparison of emulator and model bytes (not a
/// "not modelled" or poisoned run that proves nothing).
fn mostly_compared(t: &Tally) {
    assert!(
        t.get("agree") * 4 >= t.total() * 3,
        "fewer than three quarters of the seeds were compared: {t}"
    );
}

#[test]
fn pack_tile_diff_over_seeds() {
    let t = tally::<PackTileCase>("pack_tile_diff", 4096, oracles::pack_tile_diff);
    mostly_compared(&t);
}

#[test]
fn unpack_tile_diff_over_seeds() {
    let t = tally::<UnpackTileCase>("unpack_tile_diff", 4096, oracles::unpack_tile_diff);
    mostly_compared(&t);
}

/// BFP8a/BFP4a/BFP2a tiles (five-bit shared exponents,
/// `FloatBitPatterns.md`'s BFP8aToFP16) reach real comparisons, not only
/// undefined exponents.
#[test]
fn bfp_a_unpacks_are_compared() {
    let mut t = Tally::default();
    for seed in 0..seeds() * 16 {
        let case: UnpackTileCase = from_seed(seed, 4096);
        if case.job.input.is_bfp() && case.job.input.is_a_form() {
            t.add(&oracles::unpack_tile_diff(&case));
        }
    }
    eprintln!("unpack_tile_diff, BFP a forms: {t}");
    assert!(t.get("agree") * 2 >= t.total(), "{t}");
    assert!(t.get("agree") >= 10, "{t}");
}

#[test]
fn roundtrip_over_seeds() {
    let t = tally::<RoundTripCase>("roundtrip", 4096, oracles::roundtrip);
    mostly_compared(&t);
}

/// Wormhole B0 round trips (four packers, one per face, then the unpacker
/// reading the tile as one descriptor): about half the generated cases, and
/// most of them reach a real comparison with the golden model and the
/// precision rules, on the BFP outputs too.
#[test]
fn wormhole_roundtrips_are_compared() {
    use tensix_harness::vector::Arch;
    let mut t = Tally::default();
    let mut bfp = Tally::default();
    let mut blackhole = 0u64;
    for seed in 0..seeds() * 2 {
        let case: RoundTripCase = from_seed(seed, 4096);
        if case.pack.job.arch != Arch::WormholeB0 {
            blackhole += 1;
            continue;
        }
        let v = oracles::roundtrip(&case);
        if case.pack.job.out.is_bfp() {
            bfp.add(&v);
        }
        t.add(&v);
    }
    eprintln!("roundtrip, Wormhole B0: {t}; BFP outputs: {bfp}; Blackhole: {blackhole}");
    let wormhole = t.total() as u64;
    assert!(
        wormhole * 3 >= seeds() * 2 && blackhole * 3 >= seeds() * 2,
        "not about half on each architecture: {wormhole} Wormhole B0, {blackhole} Blackhole"
    );
    mostly_compared(&t);
    assert!(bfp.get("agree") as u64 >= seeds() / 8, "{bfp}");
}

/// The committed `seed-wh-*` round-trip seeds still decode to Wormhole B0
/// round trips that reach a real comparison (the replay in `fuzz_corpus`
/// only requires them to pass).
#[test]
fn wormhole_roundtrip_corpus_seeds_are_wormhole() {
    use tensix_harness::generators::decode;
    use tensix_harness::vector::Arch;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/roundtrip");
    for name in [
        "seed-wh-bfp8-four-packers",
        "seed-wh-bfp4a-end-of-l1",
        "seed-wh-fp32-dst",
    ] {
        let bytes = std::fs::read(dir.join(name)).expect("the seed is committed");
        let case: RoundTripCase = decode(&bytes).expect("the seed decodes");
        assert_eq!(case.pack.job.arch, Arch::WormholeB0, "{name}");
        let v = oracles::check_roundtrip(&mut oracles::Workbench::new(), &case)
            .unwrap_or_else(|f| panic!("{name}: {f:?}"));
        assert_eq!(v, oracles::Verdict::Agree, "{name}");
    }
}

#[test]
fn pack_program_over_seeds() {
    tally::<PackProgram>("pack_program", 2048, oracles::pack_program);
}

#[test]
fn unpack_program_over_seeds() {
    tally::<UnpackProgram>("unpack_program", 2048, oracles::unpack_program);
}

#[test]
fn isa_over_seeds() {
    let t = tally::<IsaCase>("isa_roundtrip", 8, |c| {
        oracles::isa::isa_roundtrip(c.arch, c.word)
    });
    assert!(t.get("agree") > 0, "no seeded word decoded");
}

#[test]
fn formats_over_seeds() {
    let mut t = Tally::default();
    for seed in 0..seeds() * 64 {
        let b = seeded_bytes(seed, 4);
        t.add(&oracles::formats::formats(u32::from_le_bytes([
            b[0], b[1], b[2], b[3],
        ])));
    }
    assert_eq!(t.get("agree") as u64, seeds() * 64);
}

#[test]
fn vector_round_trip_over_seeds() {
    let t = tally::<AnyVector>("vector_parse (generated)", 1024, |v| {
        oracles::vector::vector_roundtrip(&v.0)
    });
    assert_eq!(t.get("agree") as u64, seeds());
    let mut r = Tally::default();
    for seed in 0..seeds() {
        r.add(&oracles::vector::vector_parse(&seeded_bytes(seed, 200)));
    }
    assert!(r.get("rejected with a located error") > 0);
}

/// Wormhole B0 unpacks (the `UNPACR_Regular.md` functional model on its own
/// architecture, tt-llk's Wormhole programming) reach real comparisons and
/// agree: a third of the generated jobs are Wormhole B0, and all but those
/// the model refuses (undefined BFP8a exponents, a tile past L1's end) must
/// compare equal.
#[test]
fn wormhole_unpacks_are_compared() {
    use tensix_harness::golden::UnpackTarget;
    use tensix_harness::vector::{Arch, DstMode};
    let mut t = Tally::default();
    // Jobs into Dst16b (UNPACR_Regular.md: 16-bit outputs to Dst), which the
    // model covers on Wormhole B0 only.
    let mut dst16 = Tally::default();
    for seed in 0..seeds() * 3 {
        let case: UnpackTileCase = from_seed(seed, 4096);
        if case.job.arch == Arch::WormholeB0 {
            let v = oracles::unpack_tile_diff(&case);
            if case.job.target == UnpackTarget::Dst && case.job.dst_view().mode() == DstMode::Bits16
            {
                dst16.add(&v);
            }
            t.add(&v);
        }
    }
    eprintln!("unpack_tile_diff, Wormhole B0: {t}; into Dst16b: {dst16}");
    assert!(
        t.total() as u64 >= seeds() / 2,
        "too few Wormhole jobs: {t}"
    );
    mostly_compared(&t);
    assert!(dst16.get("agree") as u64 >= seeds() / 16, "{dst16}");
}
