//! The MOP Expander followed by the Replay Expander, in the order
//! tt-isa-documentation `MOPExpander.md` and `REPLAY.md` give: MOP expansion
//! first, then REPLAY expansion.

use std::collections::VecDeque;

use tensix_emu::exec::mop::MopExpander;
use tensix_emu::exec::replay::ReplayExpander;
use tensix_emu::{Arch, Fault};

const NOP: u32 = 0x0200_0000;
const P: u32 = 0x4200_0001;
const Q: u32 = 0x4200_0002;
const X: u32 = 0x2600_0007;

fn replay(index: u32, count: u32, exec: bool, load: bool) -> u32 {
    (0x04 << 24) | (index << 14) | (count << 4) | (u32::from(exec) << 1) | u32::from(load)
}

fn mop(template: u32, count1: u32, mask_lo: u32) -> u32 {
    (0x01 << 24) | (template << 23) | (count1 << 16) | mask_lo
}

struct Thread {
    fifo: VecDeque<u32>,
    mop: MopExpander,
    replay: ReplayExpander,
}

impl Thread {
    fn new(cfg: [u32; 9], input: &[u32]) -> Thread {
        let mut mop = MopExpander::new(Arch::WormholeB0);
        for (i, v) in cfg.into_iter().enumerate() {
            mop.set_config(i, v).unwrap();
        }
        Thread {
            fifo: input.iter().copied().collect(),
            mop,
            replay: ReplayExpander::new(Arch::WormholeB0),
        }
    }

    fn next(&mut self) -> Result<Option<u32>, Fault> {
        let Thread { fifo, mop, replay } = self;
        replay.next(|| mop.next(|| Ok(fifo.pop_front())))
    }

    fn drain(&mut self) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some(w) = self.next().unwrap() {
            out.push(w);
        }
        out
    }
}

// A MOP's expansion may contain REPLAY instructions, which the Replay
// Expander then expands: template 1 with OuterCount 3, InnerCount 1, and
// every loop slot a playback of entries 0..2.
#[test]
fn mop_expansion_contains_replays() {
    let play = replay(0, 2, false, false);
    let cfg = [3, 1, NOP, NOP, NOP, play, NOP, play, play];
    let mut t = Thread::new(cfg, &[replay(0, 2, false, true), P, Q, mop(1, 0, 0)]);
    assert_eq!(t.drain(), [P, Q, P, Q, P, Q]);
}

// A recording captures what the MOP Expander emits, since it sits first:
// recording 3 entries while a template 0 MOP expands to 3 instructions.
#[test]
fn recording_captures_mop_expansion() {
    let cfg = [0, 0, 0, X, 0, 0, 0, 0, 0];
    let mut t = Thread::new(
        cfg,
        &[
            replay(0, 3, false, true),
            mop(0, 2, 0),
            replay(0, 3, false, false),
        ],
    );
    assert_eq!(t.drain(), [X, X, X]);
    assert_eq!(t.replay.buffer()[..4], [X, X, X, 0]);
}

// Each call yields one instruction, so two threads' streams interleave
// instruction by instruction even while one of them is expanding a MOP.
#[test]
fn threads_interleave() {
    let cfg = [0, 0, 0, X, 0, 0, 0, 0, 0];
    let mut a = Thread::new(cfg, &[mop(0, 2, 0)]);
    let mut b = Thread::new(cfg, &[P, Q, P]);
    let mut out = Vec::new();
    for _ in 0..3 {
        out.push(a.next().unwrap().unwrap());
        out.push(b.next().unwrap().unwrap());
    }
    assert_eq!(out, [X, P, X, Q, X, P]);
    assert_eq!(a.next().unwrap(), None);
}
