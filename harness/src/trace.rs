//! `tensix-harness trace`: a vector's instruction stream as the emulator ran
//! it, one instruction a line, with the issuing thread's ADCs after it and
//! the L1 writes it made.
//!
//! JSON shape (`--format json`), schema `tensix-trace/1`:
//!
//! ```text
//! { "schema": "tensix-trace/1", "vector": NAME, "arch": "blackhole",
//!   "instructions": [
//!     { "index": 0, "thread": 2, "entry": 0, "word": "0x5e803c00",
//!       "text": "SETADCXX x_end2=0xf cnt_set_mask=4",
//!       "expanded_from": null | { "word": ..., "text": "MOP ..." },  // MOP/REPLAY
//!       "adcs": { "unpacker0": [[X,Y,Z,W],[X,Y,Z,W]], "unpacker1": ...,
//!                 "packers": ... },            // channel 0, channel 1
//!       "l1_writes": [ { "addr": "0x10010", "bytes": "32 hex digits",
//!                        "stream": "data" | "exponent" | "row-start" } ] } ],
//!   "fault": null | { "kind": "undefined_behavior", "message": ... } }
//! ```

use crate::vector::Vector;
use std::fmt::Write as _;
use tensix_emu::observe::{Issued, Observer};
use tensix_emu::state::l1::L1Write;
use tensix_emu::{Fault, Machine};

/// A vector run with everything recorded.
pub struct Observed {
    /// The machine as the setup left it.
    pub before: Machine,
    /// The machine as the run left it.
    pub after: Machine,
    pub fault: Option<Fault>,
    /// What the run did.
    pub record: Observer,
}

impl Observed {
    /// Run `v` with an observer.
    pub fn run(v: &Vector) -> Result<Observed, String> {
        let mut before = crate::run::prepare(v)?;
        before.observer = Some(Box::default());
        let (mut after, fault) = crate::run::execute(v, &before);
        before.observer = None;
        let record = after.observer.take().map(|o| *o).unwrap_or_default();
        Ok(Observed {
            before,
            after,
            fault,
            record,
        })
    }
}

/// Which instructions to show.
#[derive(Clone, Copy, Debug, Default)]
pub struct Selection {
    pub thread: Option<u8>,
    /// Issue indices, inclusive.
    pub from: Option<u64>,
    pub to: Option<u64>,
}

impl Selection {
    fn keeps(&self, i: &Issued) -> bool {
        self.thread.is_none_or(|t| t == i.thread)
            && self.from.is_none_or(|f| i.index >= f)
            && self.to.is_none_or(|t| i.index <= t)
    }
}

fn text(arch: tensix_emu::Arch, word: u32) -> String {
    match tensix_emu::isa::decode(arch, word) {
        Ok(i) => i.to_string(),
        Err(e) => format!("(does not decode: {e})"),
    }
}

/// The program word an instruction came from, when it is not the
/// instruction itself: the MOP or REPLAY word the front end expanded.
fn expanded_from(v: &Vector, i: &Issued) -> Option<u32> {
    let step = v
        .program
        .iter()
        .filter(|p| usize::from(p.thread) == usize::from(i.thread))
        .flat_map(|p| p.run.iter())
        .nth(i.entry)?;
    match *step {
        crate::vector::Step::Instruction(w) if w != i.word => Some(w),
        _ => None,
    }
}

fn writes_of(o: &Observed, index: u64) -> impl Iterator<Item = &L1Write> {
    o.after
        .l1
        .log()
        .iter()
        .filter(move |w| w.instruction == index)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const UNITS: [&str; 3] = ["unpacker0", "unpacker1", "packers"];

/// The human form.
pub fn human(v: &Vector, o: &Observed, sel: Selection) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "trace of {} ({})", v.name, v.arch);
    for i in o.record.instructions.iter().filter(|i| sel.keeps(i)) {
        let _ = writeln!(
            s,
            "#{:<4} t{} entry {:<3} {:#010x}  {}",
            i.index,
            i.thread,
            i.entry,
            i.word,
            text(v.arch, i.word)
        );
        if let Some(w) = expanded_from(v, i) {
            let _ = writeln!(s, "      expanded from {w:#010x}  {}", text(v.arch, w));
        }
        let adcs: Vec<String> = UNITS
            .iter()
            .zip(i.adcs)
            .map(|(u, [c0, c1])| {
                format!(
                    "{u} x{}/{} y{}/{} z{}/{} w{}/{}",
                    c0[0], c1[0], c0[1], c1[1], c0[2], c1[2], c0[3], c1[3]
                )
            })
            .collect();
        let _ = writeln!(s, "      ADCs (ch0/ch1): {}", adcs.join("; "));
        for w in writes_of(o, i.index) {
            let _ = writeln!(
                s,
                "      L1 {:#08x} <- {}  {}",
                w.addr,
                hex(&w.bytes),
                w.stream.name()
            );
        }
    }
    match &o.fault {
        Some(f) => {
            let _ = writeln!(s, "stopped: {f}");
        }
        None => {
            let _ = writeln!(s, "completed");
        }
    }
    s
}

/// The JSON form (see the module documentation).
pub fn json(v: &Vector, o: &Observed, sel: Selection) -> serde_json::Value {
    let instructions: Vec<serde_json::Value> = o
        .record
        .instructions
        .iter()
        .filter(|i| sel.keeps(i))
        .map(|i| {
            let adcs: serde_json::Map<String, serde_json::Value> = UNITS
                .iter()
                .zip(i.adcs)
                .map(|(u, a)| (u.to_string(), serde_json::json!(a)))
                .collect();
            serde_json::json!({
                "index": i.index,
                "thread": i.thread,
                "entry": i.entry,
                "word": format!("{:#010x}", i.word),
                "text": text(v.arch, i.word),
                "expanded_from": expanded_from(v, i).map(|w| serde_json::json!({
                    "word": format!("{w:#010x}"),
                    "text": text(v.arch, w),
                })),
                "adcs": adcs,
                "l1_writes": writes_of(o, i.index)
                    .map(|w| {
                        serde_json::json!({
                            "addr": format!("{:#x}", w.addr),
                            "bytes": hex(&w.bytes),
                            "stream": w.stream.name(),
                        })
                    })
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "schema": "tensix-trace/1",
        "vector": v.name,
        "arch": v.arch.to_string(),
        "instructions": instructions,
        "fault": o.fault.as_ref().map(|f| serde_json::json!({"kind": f.kind.name(), "message": f.to_string()})),
    })
}
