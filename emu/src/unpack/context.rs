//! Context selection: which Config state, configuration context and ADC set
//! an `UNPACR` uses (`UNPACR_Regular.md`, start of the functional model).
//!
//! Outside `MultiContextMode` (the `OvrdThreadId` bit) an instruction uses
//! context 0 and the issuing thread's ADCs. In `MultiContextMode` the context
//! is `ContextNumber`, or the unpacker's per-thread context counter when
//! `UseContextCounter` (`AutoIncContextID`) is set, plus the thread's
//! `UNPACK_MISC_CFG_CfgContextOffset`, modulo 8; the ADC set for X and Y is
//! `ContextADC` (`AddrCntContextId`).

use super::fields::UNPACKERS;
use super::regular::UnpacrOp;
use crate::fault::{Fault, Result};
use crate::machine::Machine;

/// The contexts and counters one `UNPACR` uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    /// `StateID`: the Config state of the issuing thread (`CFG_STATE_ID`).
    pub state: usize,
    /// `WhichContext`, 0..8.
    pub context: usize,
    /// `WhichADC`: the ADC set whose channel 0 X/Y and channel 1 X form the
    /// input address and datum count.
    pub adc: usize,
}

/// Select the contexts for `op` issued by `thread`.
#[inline]
pub fn select(m: &Machine, thread: usize, op: &UnpacrOp) -> Result<Selection> {
    let f = &UNPACKERS[op.unpacker & 1];
    let state = crate::exec::config_unit::state_of(&m.thread_config, thread);
    if !op.multi_context {
        return Ok(Selection {
            state,
            context: 0,
            adc: thread,
        });
    }
    let base = if op.use_context_counter {
        m.unpackers.units[op.unpacker].context_counter[thread] as u32
    } else {
        op.context_number
    };
    let offset = m.thread_config.get(thread, f.context_offset);
    let context = (base.wrapping_add(offset) & 7) as usize;
    if op.unpacker == 1 && context >= 2 {
        return Err(Fault::undefined(format!(
            "UNPACR on unpacker 1 selects configuration context {context}; it has only contexts 0 and 1 \
             (UNPACR_Regular.md: WhichUnpacker == 1 && WhichContext >= 2)"
        )));
    }
    if op.context_adc == 3 {
        return Err(Fault::undefined(
            "UNPACR selects ADC set 3 with AddrCntContextId; there are three sets \
             (UNPACR_Regular.md: WhichADC == 3)",
        ));
    }
    Ok(Selection {
        state,
        context,
        adc: op.context_adc as usize,
    })
}

/// The context counter after an instruction that used `context` with
/// `UseContextCounter`: the next context, or 0 once it reaches
/// `1 << Context_count` (`UNPACR_Regular.md`, "Update counters").
pub fn next_context(context: usize, context_count: u32) -> u8 {
    let next = (context as u32 + 1) & 7;
    if next >= 1 << (context_count & 3) {
        0
    } else {
        next as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// UNPACR_Regular.md: the counter wraps to 0 at `1 << Context_count`
    /// and, being a `uint3_t`, after 7.
    #[test]
    fn context_counter_wraps_at_the_configured_count() {
        assert_eq!(next_context(0, 0), 0);
        assert_eq!(next_context(0, 1), 1);
        assert_eq!(next_context(1, 1), 0);
        assert_eq!(next_context(2, 2), 3);
        assert_eq!(next_context(3, 2), 0);
        assert_eq!(next_context(6, 3), 7);
        assert_eq!(next_context(7, 3), 0);
    }
}
