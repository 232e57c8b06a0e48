//! What an `UNPACR` does that follows from its operands, its thread, the
//! context it selects and the configuration alone, before any counter,
//! register or L1 byte is looked at: the unpacker's settings, the checks
//! those settings must pass, the ADC unit, the format conversion and the
//! `Dst` address remapping (`UNPACR_Regular.md`, functional model, up to
//! "Determine initial input address(es)").
//!
//! An LLK program issues the same `UNPACR` once per face under the same
//! configuration, so each unpacker keeps its last preparation with what it
//! was made from: the operands, the thread, the selection and the stamps of
//! Config and ThreadConfig. Only fault-free preparations are kept; an
//! instruction that faults prepares afresh and meets its fault in the
//! functional model's order. A preparation reached from an instruction word
//! whose selection needs no context counter is found again by that word,
//! without decoding it ([`PreparedCache::take_word`]).

use super::context::Selection;
use super::descriptor::Settings;
use super::input::InputBase;
use super::output::OutputBase;
use super::regular::UnpacrOp;
use crate::adc::Unit;
use crate::arch::Arch;
use crate::exec::dst_addressing;
use crate::fault::{Fault, Result};
use crate::format::unpack::{Conversion, UnpackConfig};
use crate::machine::Machine;
use crate::regs::Stamp;
use crate::state::dst::DstAddressing;

/// One `UNPACR`'s choices that need no counter, register or L1 byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prepared {
    pub settings: Settings,
    /// The unpacker's ADC unit.
    pub unit: Unit,
    pub conversion: Conversion,
    /// `DEST_ACCESS_CFG` of the selected Config state.
    pub dst_addressing: DstAddressing,
    /// What the settings decide of the input and output sides.
    pub input: InputBase,
    pub output: OutputBase,
    /// Whether the settings let the instruction take the contiguous path
    /// (`unpack/contiguous.rs`); its counters and L1 decide the rest.
    pub contiguous: bool,
}

impl Prepared {
    /// The choices of `op` issued by `thread` under `sel`, or their first
    /// fault: the settings, the modes they must not select, the ADC sets,
    /// then the conversion.
    pub fn new(m: &Machine, thread: usize, op: &UnpacrOp, sel: &Selection) -> Result<Prepared> {
        let s = Settings::read(&m.config, &m.thread_config, thread, op, sel)?;
        // UNPACR_Regular.md, "Performance", names Throttle_mode 0, 1 and 2;
        // ttsim treats 3 as undefined on Wormhole B0 (Blackhole accepts it).
        if s.arch == Arch::WormholeB0 && s.throttle_mode == 3 {
            return Err(Fault::undefined(
                "UNPACR with Throttle_mode 3 on Wormhole B0: only x1, x2 and x4 exist \
                 (UNPACR_Regular.md, Performance; ttsim)",
            ));
        }
        if s.extra_limit {
            return Err(Fault::unimplemented(
                "UNPACR with REG10_Unpack_limit_address_en (Blackhole): only a register comment \
                 describes this second FIFO limit (\"used by cntx1 for wraparound\")",
            ));
        }
        if op.use_context_counter && op.multi_context && s.context_count_non_log2 {
            return Err(Fault::unimplemented(
                "UNPACR context counter with Context_count_non_log2_en (Blackhole): \
                 no source describes the non-power-of-two count",
            ));
        }
        let unit = Unit::unpacker(op.unpacker as u32)
            .ok_or_else(|| Fault::undefined("UNPACR names an unpacker other than 0 and 1"))?;
        if m.adcs.values(sel.adc, unit).is_none() {
            return Err(Fault::undefined("UNPACR ADC set out of range"));
        }
        if m.adcs.values(thread, unit).is_none() {
            return Err(Fault::undefined("UNPACR issued by a thread without ADCs"));
        }
        let conversion = Conversion::new(
            s.arch,
            &UnpackConfig {
                in_format: s.in_format,
                out_format: s.out_format,
                to_dst: s.unpack_to_dst,
                int8_unsigned: s.int8_unsigned,
                fp8: s.fp8,
            },
        )?;
        let input = InputBase::new(&s);
        let output = OutputBase::new(&s, op.unpacker, op.multi_context);
        Ok(Prepared {
            settings: s,
            unit,
            conversion,
            dst_addressing: dst_addressing(&m.config, sel.state),
            input,
            output,
            contiguous: input.contiguous() && output.one_to_one() && s.fifo_size == 0,
        })
    }
}

/// An unpacker's last fault-free [`Prepared`] and what it was made from.
///
/// A cache, not state: any two are equal, and a cleared one changes nothing
/// an instruction does.
#[derive(Clone, Debug, Default)]
pub struct PreparedCache(Option<Box<Kept>>);

/// A [`Prepared`] with what it was made from.
#[derive(Clone, Debug)]
pub struct Kept {
    key: Key,
    stamps: (Stamp, Stamp),
    /// The instruction word the operands were decoded from, where the word
    /// with the thread and the stamps decides the whole key: unless the
    /// context comes from the unpacker's context counter
    /// (`UseContextCounter` in `MultiContextMode`), the selection follows
    /// from the operands, the thread and ThreadConfig
    /// ([`super::context::select`]).
    word: Option<u32>,
    pub prepared: Prepared,
}

impl Kept {
    /// The operands it was prepared for.
    pub fn op(&self) -> &UnpacrOp {
        &self.key.0
    }

    /// The selection it was prepared under.
    pub fn selection(&self) -> &Selection {
        &self.key.2
    }

    /// Whether neither Config nor ThreadConfig has been stored to since it
    /// was prepared.
    pub fn holds_on(&self, m: &Machine) -> bool {
        m.config.has_stamp(&self.stamps.0) && m.thread_config.has_stamp(&self.stamps.1)
    }

    /// Whether it was reached from an instruction word that finds it again
    /// ([`Kept::reached_from`]): its selection does not move with the
    /// context counter.
    pub fn found_by_word(&self) -> bool {
        self.word.is_some()
    }

    /// Say that the operands were decoded from `word`; ignored where the
    /// selection also follows the context counter.
    pub fn reached_from(&mut self, word: u32) {
        let op = &self.key.0;
        let by_counter = op.multi_context && op.use_context_counter;
        self.word = (!by_counter).then_some(word);
    }
}

/// The operands, the issuing thread and the selection.
type Key = (UnpacrOp, usize, Selection);

impl PartialEq for PreparedCache {
    fn eq(&self, _: &PreparedCache) -> bool {
        true
    }
}

impl Eq for PreparedCache {}

impl PreparedCache {
    /// What [`Prepared::new`] gives for `op` issued by `thread` under `sel`
    /// on `m`: the kept preparation, taken out of the unpacker's cache,
    /// when nothing it was made from has changed. Hand it back with
    /// [`PreparedCache::keep`] (one not handed back is made again).
    #[inline]
    pub fn take(
        m: &mut Machine,
        thread: usize,
        op: &UnpacrOp,
        sel: &Selection,
    ) -> Result<Box<Kept>> {
        let key = (*op, thread, *sel);
        let kept = match m.unpackers.prepared[op.unpacker & 1].0.take() {
            Some(k)
                if k.key == key
                    && m.config.has_stamp(&k.stamps.0)
                    && m.thread_config.has_stamp(&k.stamps.1) =>
            {
                return Ok(k);
            }
            other => other,
        };
        let prepared = Prepared::new(m, thread, op, sel)?;
        let fresh = Kept {
            key,
            stamps: (m.config.stamp(), m.thread_config.stamp()),
            word: None,
            prepared,
        };
        Ok(match kept {
            // The old one's allocation serves the new one.
            Some(mut k) => {
                *k = fresh;
                k
            }
            None => Box::new(fresh),
        })
    }

    /// The kept preparation of instruction word `word` issued by `thread`,
    /// taken out of its unpacker's cache, when it was reached from that word
    /// ([`Kept::reached_from`]) by the same thread and neither Config nor
    /// ThreadConfig has been stored to since: what decoding the word,
    /// selecting and [`PreparedCache::take`] would give, none of which can
    /// fault then. `None` leaves both caches as they were.
    #[inline]
    pub fn take_word(m: &mut Machine, thread: usize, word: u32) -> Option<Box<Kept>> {
        let (config, thread_config) = (&m.config, &m.thread_config);
        m.unpackers
            .prepared
            .iter_mut()
            .find(|c| {
                c.0.as_ref().is_some_and(|k| {
                    k.word == Some(word)
                        && k.key.1 == thread
                        && config.has_stamp(&k.stamps.0)
                        && thread_config.has_stamp(&k.stamps.1)
                })
            })
            .and_then(|c| c.0.take())
    }

    /// Keep `kept` for the next instruction.
    #[inline]
    pub fn keep(&mut self, kept: Box<Kept>) {
        self.0 = Some(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{encode, Instruction, Unpacr};
    use crate::regs::{CfgField as C, ThreadCfgField as T};

    /// Take and keep, as an instruction does.
    fn prepare(m: &mut Machine, thread: usize, op: &UnpacrOp, sel: &Selection) -> Result<Prepared> {
        let kept = PreparedCache::take(m, thread, op, sel)?;
        let prepared = kept.prepared;
        m.unpackers.prepared[op.unpacker & 1].keep(kept);
        Ok(prepared)
    }

    /// A preparation is found again by its word only for the thread that
    /// issued it, from its own unpacker's cache, while neither Config nor
    /// ThreadConfig has been stored to, and never for a word whose context
    /// comes from the context counter.
    #[test]
    fn words_find_their_preparation_only_while_it_holds() {
        let arch = Arch::Blackhole;
        let mut m = Machine::new(arch);
        // BF16 in and out on both unpackers, so that the conversions exist.
        for (descriptor, out) in [
            (
                C::THCON_SEC0_REG0_TileDescriptor,
                C::THCON_SEC0_REG2_Out_data_format,
            ),
            (
                C::THCON_SEC1_REG0_TileDescriptor,
                C::THCON_SEC1_REG2_Out_data_format,
            ),
        ] {
            let at = descriptor.on(arch).unwrap().addr32 as usize;
            m.write_config(0, at, 5).unwrap();
            m.config.set(0, out, 5);
        }
        let word = |i: Unpacr| encode(arch, &Instruction::Unpacr(i)).unwrap();
        // What `unpacr_word` does on its first issue of a word.
        let issue = |m: &mut Machine, thread: usize, w: u32| {
            let op = UnpacrOp::decode(&Unpacr::from_word(arch, w)).unwrap();
            let sel = crate::unpack::context::select(m, thread, &op).unwrap();
            let mut kept = PreparedCache::take(m, thread, &op, &sel).unwrap();
            kept.reached_from(w);
            m.unpackers.prepared[op.unpacker & 1].keep(kept);
        };
        let found = |m: &mut Machine, thread: usize, w: u32| {
            let Some(kept) = PreparedCache::take_word(m, thread, w) else {
                return false;
            };
            let want = UnpacrOp::decode(&Unpacr::from_word(arch, w)).unwrap();
            assert_eq!(*kept.op(), want, "{w:#010x}");
            m.unpackers.prepared[want.unpacker & 1].keep(kept);
            true
        };
        let a = word(Unpacr {
            addr_mode: 0b0101,
            ..Default::default()
        });
        issue(&mut m, 0, a);
        assert!(found(&mut m, 0, a));
        assert!(found(&mut m, 0, a), "kept again after being found");
        assert!(!found(&mut m, 1, a), "another thread");
        let other = word(Unpacr {
            addr_mode: 0b0110,
            ..Default::default()
        });
        assert!(!found(&mut m, 0, other), "another word");
        m.thread_config.set(1, T::SRCA_SET_SetOvrdWithAddr, 1);
        assert!(!found(&mut m, 0, a), "after a ThreadConfig store");
        issue(&mut m, 0, a);
        assert!(found(&mut m, 0, a));
        m.config.set(0, C::THCON_SEC0_REG3_Base_address, 0x40);
        assert!(!found(&mut m, 0, a), "after a Config store");
        // Each unpacker's word from its own cache.
        let b = word(Unpacr {
            unpack_block_selection: 1,
            addr_mode: 0b0101,
            ..Default::default()
        });
        issue(&mut m, 0, a);
        issue(&mut m, 0, b);
        assert!(found(&mut m, 0, a));
        assert!(found(&mut m, 0, b));
        // MultiContextMode: found with its ContextNumber, never with the
        // context counter.
        let numbered = word(Unpacr {
            ovrd_thread_id: 1,
            ..Default::default()
        });
        issue(&mut m, 0, numbered);
        assert!(found(&mut m, 0, numbered));
        let counted = word(Unpacr {
            ovrd_thread_id: 1,
            auto_inc_context_id: 1,
            ..Default::default()
        });
        issue(&mut m, 0, counted);
        assert!(!found(&mut m, 0, counted));
    }

    /// The cache hands back what a fresh preparation gives after every kind
    /// of change an `UNPACR` could see: a Config store, a ThreadConfig
    /// store, another thread or context, other operands, and a cloned (then
    /// changed) machine.
    #[test]
    fn kept_preparations_follow_every_store() {
        let arch = Arch::Blackhole;
        let mut m = Machine::new(arch);
        // BF16 in and out, so that the conversion exists.
        let descriptor = C::THCON_SEC0_REG0_TileDescriptor.on(arch).unwrap();
        m.write_config(0, descriptor.addr32 as usize, 5).unwrap();
        m.config.set(0, C::THCON_SEC0_REG2_Out_data_format, 5);
        let op = UnpacrOp {
            multi_context: true,
            ..UnpacrOp::default()
        };
        let sel = |context| Selection {
            state: 0,
            context,
            adc: 0,
        };
        let check = |m: &mut Machine, op: &UnpacrOp, thread, ctx| {
            let fresh = Prepared::new(m, thread, op, &sel(ctx));
            let kept = prepare(m, thread, op, &sel(ctx));
            assert_eq!(kept, fresh);
            fresh.unwrap()
        };
        assert_eq!(check(&mut m, &op, 0, 0).settings.base, 0);
        m.config.set(0, C::THCON_SEC0_REG3_Base_address, 0x40);
        assert_eq!(check(&mut m, &op, 0, 0).settings.base, 0x40);
        m.config.set(0, C::THCON_SEC0_REG3_Base_cntx1_address, 0x80);
        assert_eq!(check(&mut m, &op, 0, 1).settings.base, 0x80);
        assert_eq!(check(&mut m, &op, 0, 0).settings.base, 0x40);
        m.thread_config.set(1, T::SRCA_SET_SetOvrdWithAddr, 1);
        assert!(!check(&mut m, &op, 0, 0).settings.set_ovrd_with_addr);
        assert!(check(&mut m, &op, 1, 0).settings.set_ovrd_with_addr);
        m.thread_config.set(1, T::SRCA_SET_SetOvrdWithAddr, 0);
        assert!(!check(&mut m, &op, 1, 0).settings.set_ovrd_with_addr);
        m.thread_config.set(0, T::SRCA_SET_SetOvrdWithAddr, 1);
        assert!(check(&mut m, &op, 0, 0).settings.set_ovrd_with_addr);
        // Other operands: outside MultiContextMode context 0's base is read.
        let single = UnpacrOp::default();
        assert_eq!(check(&mut m, &single, 0, 1).settings.base, 0x40);
        // A conversion that faults is found again, not kept.
        m.config.set(0, C::THCON_SEC0_REG2_Out_data_format, 0);
        assert!(Prepared::new(&m, 0, &single, &sel(0)).is_err());
        assert!(prepare(&mut m, 0, &single, &sel(0)).is_err());
        assert!(prepare(&mut m, 0, &single, &sel(0)).is_err());
        m.config.set(0, C::THCON_SEC0_REG2_Out_data_format, 5);
        assert_eq!(
            check(&mut m, &single, 0, 0).conversion,
            Conversion::Bf16 { to_dst: false }
        );
        // Remapped Dst addressing is part of what is kept.
        m.config.set(0, C::DEST_ACCESS_CFG_remap_addrs, 1);
        assert!(check(&mut m, &single, 0, 0).dst_addressing.remap_addrs);
        let mut other = m.clone();
        other.config.set(0, C::THCON_SEC0_REG3_Base_address, 0x60);
        assert_eq!(check(&mut other, &op, 0, 0).settings.base, 0x60);
        assert_eq!(check(&mut m, &op, 0, 0).settings.base, 0x40);
    }
}
