//! Replay Expander, checked against the functional model in
//! tt-isa-documentation `WormholeB0/TensixTile/TensixCoprocessor/REPLAY.md`
//! and the encoding in `Diagrams/Src/Bits32.lua` (opcode 0x04, Load [0],
//! Exec [1], Count [9:4], Index [18:14]). Expected values are worked out by
//! hand.

use std::collections::VecDeque;

use proptest::prelude::*;
use tensix_emu::exec::replay::{ReplayExpander, ReplayState, REPLAY_BUFFER_LEN};
use tensix_emu::Arch;
use tensix_emu::{Fault, FaultKind};

const W: [u32; 6] = [
    0x4200_0001,
    0x4200_0002,
    0x4200_0003,
    0x4200_0004,
    0x4200_0005,
    0x4200_0006,
];

fn replay(index: u32, count: u32, exec: bool, load: bool) -> u32 {
    (0x04 << 24) | (index << 14) | (count << 4) | (u32::from(exec) << 1) | u32::from(load)
}

fn record(index: u32, count: u32) -> u32 {
    replay(index, count, false, true)
}

fn play(index: u32, count: u32) -> u32 {
    replay(index, count, false, false)
}

fn run(r: &mut ReplayExpander, input: &[u32]) -> Result<Vec<u32>, Fault> {
    let mut fifo: VecDeque<u32> = input.iter().copied().collect();
    let mut out = Vec::new();
    while let Some(w) = r.next(|| Ok(fifo.pop_front()))? {
        out.push(w);
    }
    Ok(out)
}

// Load without Exec: the next Count instructions go to ReplayBuffer[Index..]
// and are not emitted; the one after passes through.
#[test]
fn record_without_exec() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    assert_eq!(
        run(&mut r, &[record(3, 2), W[0], W[1], W[2]]).unwrap(),
        [W[2]]
    );
    let mut expect = [0; REPLAY_BUFFER_LEN];
    expect[3] = W[0];
    expect[4] = W[1];
    assert_eq!(r.buffer(), &expect);
    assert_eq!(r.state(), ReplayState::PassThrough);
}

// Load with Exec: recorded and emitted.
#[test]
fn record_with_exec() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    let out = run(&mut r, &[replay(3, 2, true, true), W[0], W[1], W[2]]).unwrap();
    assert_eq!(out, [W[0], W[1], W[2]]);
    assert_eq!(r.buffer()[3..5], [W[0], W[1]]);
}

// Playback yields ReplayBuffer[Index + i] for i < Count and takes nothing in
// meanwhile.
#[test]
fn playback() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    run(&mut r, &[record(3, 2), W[0], W[1]]).unwrap();
    let mut fifo = VecDeque::from([play(3, 2), W[5]]);
    let mut pulls = 0;
    let mut pull = |fifo: &mut VecDeque<u32>| {
        pulls += 1;
        Ok(fifo.pop_front())
    };
    assert_eq!(r.next(|| pull(&mut fifo)).unwrap(), Some(W[0]));
    assert_eq!(
        r.state(),
        ReplayState::Playing {
            next_slot: 4,
            remaining: 1
        }
    );
    assert_eq!(r.next(|| pull(&mut fifo)).unwrap(), Some(W[1]));
    assert_eq!(fifo.len(), 1);
    assert_eq!(r.next(|| pull(&mut fifo)).unwrap(), Some(W[5]));
    assert_eq!(pulls, 2);
    // The buffer is kept: it can be played again.
    assert_eq!(
        run(&mut r, &[play(4, 1), play(3, 1)]).unwrap(),
        [W[1], W[0]]
    );
}

// Indices wrap modulo 32: recording 4 from entry 30 fills 30, 31, 0, 1.
#[test]
fn indices_wrap() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    run(&mut r, &[record(30, 4), W[0], W[1], W[2], W[3]]).unwrap();
    assert_eq!(
        [r.buffer()[30], r.buffer()[31], r.buffer()[0], r.buffer()[1]],
        [W[0], W[1], W[2], W[3]]
    );
    assert_eq!(run(&mut r, &[play(31, 3)]).unwrap(), [W[1], W[2], W[3]]);
}

// `Instruction.Count or 32`: Count = 0 records and plays 32 instructions.
#[test]
fn count_zero_means_32() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    let words: Vec<u32> = (0..32).map(|i| 0x4200_0100 + i).collect();
    let mut input = vec![record(0, 0)];
    input.extend(&words);
    input.push(W[0]);
    assert_eq!(run(&mut r, &input).unwrap(), [W[0]]);
    assert_eq!(r.buffer().as_slice(), words.as_slice());
    let out = run(&mut r, &[play(5, 0)]).unwrap();
    let expect: Vec<u32> = (0..32).map(|i| words[(5 + i) % 32]).collect();
    assert_eq!(out, expect);
}

// REPLAY.md: counts above 32 are not supported. Bits outside the documented
// Count and Index fields have no documented meaning.
#[test]
fn unsupported_counts_and_indices() {
    for word in [
        play(0, 33),
        play(0, 63),
        record(0, 64),
        play(32, 1),
        record(0x3FF, 1),
    ] {
        let mut r = ReplayExpander::new(Arch::WormholeB0);
        let err = run(&mut r, &[word, W[0]]).unwrap_err();
        assert_eq!(err.kind, FaultKind::Unsupported, "{word:#x}");
    }
}

// Exec is read only when recording; a playback with Exec set is an ordinary
// playback.
#[test]
fn exec_ignored_in_playback() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    run(&mut r, &[record(0, 2), W[0], W[1]]).unwrap();
    assert_eq!(
        run(&mut r, &[replay(0, 2, true, false), W[2]]).unwrap(),
        [W[0], W[1], W[2]]
    );
}

// A REPLAY that arrives while recording is stored like any instruction; it
// is not expanded. Played back, it would leave the expander unexpanded,
// which is undefined.
#[test]
fn recorded_replay_faults_on_playback() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    assert_eq!(run(&mut r, &[record(0, 1), play(1, 1)]).unwrap(), []);
    assert_eq!(r.buffer()[0], play(1, 1));
    assert_eq!(r.state(), ReplayState::PassThrough);
    let err = run(&mut r, &[play(0, 1)]).unwrap_err();
    assert_eq!(err.kind, FaultKind::UndefinedBehavior);
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    let err = run(&mut r, &[replay(0, 1, true, true), play(1, 1)]).unwrap_err();
    assert_eq!(err.kind, FaultKind::UndefinedBehavior);
}

// MOP and MOP_CFG are consumed by the MOP Expander; one reaching this stage
// (only possible by bypassing it) cannot go further.
#[test]
fn mop_at_replay_stage_is_undefined() {
    for word in [0x0180_0000, 0x0300_1234] {
        let mut r = ReplayExpander::new(Arch::WormholeB0);
        assert_eq!(
            run(&mut r, &[word]).unwrap_err().kind,
            FaultKind::UndefinedBehavior
        );
    }
}

// Recording continues across gaps in the incoming stream.
#[test]
fn recording_resumes_when_input_arrives() {
    let mut r = ReplayExpander::new(Arch::WormholeB0);
    assert_eq!(run(&mut r, &[record(7, 2), W[0]]).unwrap(), []);
    assert_eq!(
        r.state(),
        ReplayState::Loading {
            next_slot: 8,
            remaining: 1,
            execute: false
        }
    );
    assert_eq!(run(&mut r, &[W[1], W[2]]).unwrap(), [W[2]]);
    assert_eq!(r.buffer()[7..9], [W[0], W[1]]);
}

fn any_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        (any::<u32>(), 0u32..40, any::<bool>(), any::<bool>()).prop_map(|(i, c, e, l)| replay(
            i & 31,
            c,
            e,
            l
        )),
    ]
}

proptest! {
    /// No stream panics, and every instruction taken in yields at most 32
    /// emitted ones (a playback).
    #[test]
    fn stream_never_panics(words in prop::collection::vec(any_word(), 0..64)) {
        let mut r = ReplayExpander::new(Arch::WormholeB0);
        let mut fifo: VecDeque<u32> = words.iter().copied().collect();
        let mut emitted = 0usize;
        while let Ok(Some(_)) = r.next(|| Ok(fifo.pop_front())) {
            emitted += 1;
            prop_assert!(emitted <= (words.len() - fifo.len()) * REPLAY_BUFFER_LEN);
        }
    }
}
