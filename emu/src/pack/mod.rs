//! The packer: `PACR` moves datums from `Dst` (or L1) to L1.
//!
//! Each packer is a pipeline (tt-isa-documentation
//! `WormholeB0/TensixTile/TensixCoprocessor/PACR.md` and `Packers/*.md`; the
//! Blackhole override `BlackholeA0/TensixTile/TensixCoprocessor/PACR.md`),
//! one module per stage, in order:
//!
//! 1. [`input`]: the input address generator (ADC channel 0, strides,
//!    `DEST_TARGET_REG_CFG_PACK_SEC` offsets, bytes-per-datum masking, L1
//!    source mode, `ZeroWrite`, `Flush`) and Blackhole's four `Dst` read
//!    interfaces;
//! 2. the early format conversion ([`crate::format::pack::EarlyConversion`]);
//! 3. [`edge_mask`]: 0 or −∞ by tile position;
//! 4. [`relu`];
//! 5. [`histogram`]: the exponent histogram side channel;
//! 6. [`threshold`]: exponent thresholding;
//! 7. [`downsample`];
//! 8. [`late`]: the late format conversion and the BFP shared-exponent
//!    assembler;
//! 9. [`compression`]: zero compression;
//! 10. [`output`] and [`stream`]: the output address generator and its three
//!     16-byte-buffered streams, with [`l1_acc`] for `Pack_L1_Acc`.
//!
//! Wormhole B0 has four packers, chosen by `PackerMask`; Blackhole has one
//! packer whose `ReadIntfSel` picks up to four `Dst` rows. After the
//! addresses are formed, `ADDR_MOD_PACK_SEC[AddrMod]` advances ADC channel 0
//! (input) and channel 1 (output) of every ADC set used.

pub mod compression;
pub mod config;
pub mod downsample;
pub mod edge_mask;
mod express;
pub mod histogram;
pub mod input;
pub mod l1_acc;
mod lanes;
pub mod late;
pub mod output;
mod prepared;
pub mod readout;
pub mod relu;
pub mod stream;
pub mod threshold;

mod fast;

use crate::adc::{Adcs, Unit, ADC_SETS};
use crate::arch::Arch;
use crate::exec::DatumBudget;
use crate::fault::{Fault, Result};
use crate::format::bfp::BfpGroup;
use crate::format::data_format::{BfpWidth, DataFormat};
use crate::format::dst::{decode_fp32, dst32_join};
use crate::format::float::e8_to_e5;
use crate::format::pack::{fp32_round_to_tf32, EarlyConfig, EarlyConversion, Intermediate};
use crate::isa::Pacr;
use crate::machine::Machine;
use crate::observe::{BfpGroupRecord, Observer, PackDatum, PackSource};
use crate::state::dst::{adj16, adj32};
use crate::state::{Dst, L1};

use compression::{Admit, Compressor};
use config::{PackerConfig, Shared};
use downsample::Downsample;
use edge_mask::TilePosition;
use histogram::ExponentHistogram;
use input::{InputPlan, ReadInterfaces, Source};
use l1_acc::AccFormat;
use late::{BfpAssembler, Converted, Late};
use output::OutputInputs;
use relu::Relu;
use stream::Streams;

/// `PACR`'s fields, the same for both architectures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacrFields {
    pub last: bool,
    pub flush: bool,
    pub concat: bool,
    pub ovrd_thread_id: bool,
    pub zero_write: bool,
    /// Index into `ADDR_MOD_PACK_SEC`.
    pub addr_mode: usize,
    /// The packers instructed: Wormhole's `PackerMask` after its special
    /// case; `0b0001` on Blackhole.
    pub packers: u8,
    /// Blackhole's `ReadIntfSel` and `DstAccessMode`.
    pub read_interfaces: ReadInterfaces,
}

impl PacrFields {
    /// Normalise an instruction. Wormhole: a `PackerMask` of 0 means packer
    /// 0; masks other than single packers, `0b0011`, `0b1100` and `0b1111`
    /// are `UndefinedBehavior` (PACR.md). Blackhole: `CtxtCtrl`,
    /// `AddrCntContext`, `RowPadZero` and `CfgContext` are "not yet
    /// documented in detail" (BlackholeA0 PACR.md), so a non-zero value stops
    /// the run.
    #[inline]
    pub fn decode(arch: Arch, i: &Pacr) -> Result<PacrFields> {
        let packers = match arch {
            Arch::WormholeB0 => match i.pack_sel & 0xF {
                0 => 0b0001,
                m @ (0b0001 | 0b0010 | 0b0100 | 0b1000 | 0b0011 | 0b1100 | 0b1111) => m as u8,
                m => {
                    return Err(Fault::undefined(format!(
                        "PACR PackerMask = {m:#06b} is undefined: it issues work to at least \
                         one packer in the mask but may ignore other bits (PACR.md)"
                    )))
                }
            },
            Arch::Blackhole => {
                if i.ctxt_ctrl | i.addr_cnt_context | i.row_pad_zero | i.cfg_context != 0 {
                    return Err(undocumented_blackhole_field(i));
                }
                0b0001
            }
        };
        Ok(PacrFields {
            last: i.last & 1 != 0,
            flush: i.flush & 1 != 0,
            concat: i.concat & 1 != 0,
            ovrd_thread_id: i.ovrd_thread_id & 1 != 0,
            zero_write: i.zero_write & 1 != 0,
            addr_mode: (i.addr_mode & 3) as usize,
            packers,
            read_interfaces: ReadInterfaces::new(i.read_intf_sel, i.dst_access_mode & 1 != 0),
        })
    }
}

/// The fault for the first of Blackhole `PACR`'s undocumented fields that
/// is set (see [`PacrFields::decode`]).
#[cold]
fn undocumented_blackhole_field(i: &Pacr) -> Fault {
    let set = [
        (i.ctxt_ctrl, "CtxtCtrl"),
        (i.addr_cnt_context, "AddrCntContext"),
        (i.row_pad_zero, "RowPadZero"),
        (i.cfg_context, "CfgContext"),
    ]
    .into_iter()
    .find(|(value, _)| *value != 0);
    let (value, name) = set.unwrap_or((0, "none"));
    Fault::unimplemented(format!(
        "PACR {name} = {value}: BlackholeA0 PACR.md says it is not yet documented in detail"
    ))
}

/// What one packer keeps between instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackerUnit {
    /// The RSI, exponent and data streams with their 16-byte buffers.
    pub streams: Streams,
    /// BFP elements waiting for a group of 16.
    pub bfp: BfpAssembler,
    /// The tile position generator used by edge masking.
    pub tile_position: TilePosition,
    /// False at reset and after `Last` / `Flush`: the next instruction
    /// starts the tile position at zero (ttsim keeps the position only while
    /// a tile is in progress; the pages do not say when it resets).
    tile_position_live: bool,
    pub compressor: Compressor,
    pub histogram: ExponentHistogram,
}

/// What the packers remember between instructions: per packer (four on
/// Wormhole B0, one on Blackhole) the output streams and their buffers, the
/// BFP assembler, the tile position, the compression row and the exponent
/// histogram.
#[derive(Clone, Debug, Default)]
pub struct PackerState {
    units: [PackerUnit; 4],
    /// `l1_dest_addr_offset` of each packer, the 16-bit field TDMA-RISC sets
    /// (OutputAddressGenerator.md). TDMA-RISC is not modelled; set it here.
    pub l1_dest_addr_offset: [u16; 4],
    /// Use the per-datum path even where the row fast path applies (for
    /// differential tests of the fast path).
    pub force_general_path: bool,
    /// Let enabled `Dst` read interfaces leave the aligned group of four rows
    /// and read `StartRow + i`, as ttsim v1.10.0 (the model behind the
    /// `ttsim/` conformance vectors) does without a check. Off by default:
    /// BlackholeA0 PACR.md calls such a `ReadIntfSel` `UndefinedBehavior`,
    /// the documentation outranks ttsim, and later ttsim releases reject it
    /// too (see [`input::ReadInterfaces::rows`]).
    pub allow_read_interface_group_crossing: bool,
    /// The last instruction's decoded configuration.
    config_cache: Option<Box<config::Decoded>>,
}

/// Equal when the packers' state and settings are: the decoded
/// configuration is a cache, not state.
impl PartialEq for PackerState {
    fn eq(&self, other: &PackerState) -> bool {
        self.units == other.units
            && self.l1_dest_addr_offset == other.l1_dest_addr_offset
            && self.force_general_path == other.force_general_path
            && self.allow_read_interface_group_crossing == other.allow_read_interface_group_crossing
    }
}

impl Eq for PackerState {}

impl PackerState {
    /// Back to the reset state, settings included; the decoded
    /// configuration is kept, since it is checked against Config before use.
    pub fn reset(&mut self) {
        let cache = self.config_cache.take();
        *self = PackerState {
            config_cache: cache,
            ..PackerState::default()
        };
    }

    /// Take `other`'s state and settings, keeping this one's decoded
    /// configuration (checked against Config before use).
    pub fn copy_from(&mut self, other: &PackerState) {
        let cache = self.config_cache.take();
        *self = PackerState {
            units: other.units.clone(),
            config_cache: cache,
            ..*other
        };
    }

    /// Packer `i`'s state.
    pub fn unit(&self, i: usize) -> Option<&PackerUnit> {
        self.units.get(i)
    }

    /// `CLREXPHIST`: reset the exponent histogram of every packer.
    pub fn clear_exponent_histograms(&mut self) {
        for u in &mut self.units {
            u.histogram.reset();
        }
    }
}

/// Execute the `PACR` instruction word `word` for `thread`. Its prepared
/// form (`prepared::Prepared`) is kept with the decoded configuration, so a word
/// seen before is not decoded again.
pub fn pacr_word(m: &mut Machine, thread: usize, word: u32) -> Result<()> {
    pacr_words(m, thread, [word]).1
}

/// Execute consecutive `PACR` words of `thread` as that many
/// [`pacr_word`] calls would, the first tagged with the machine's issue
/// count and each next one with the count after it, deciding the
/// configuration once: `PACR` changes neither Config nor ThreadConfig.
/// Returns how many executed, and the fault that stopped the next one; the
/// caller counts them as issued. The express instructions that follow one
/// whose rows wait, in the same form, go through `express::follow`, which
/// checks only what each of them changes.
pub fn pacr_words(
    m: &mut Machine,
    thread: usize,
    words: impl IntoIterator<Item = u32>,
) -> (usize, Result<()>) {
    let mut done = 0;
    let outcome = with_config(m, thread, |mut parts, decoded| {
        let mut pending = express::Pending::new(!parts.general && !parts.l1.logging());
        let mut outcome = Ok(());
        // The words go through a buffer, so that `express::follow` is given
        // the rest of a run as a slice.
        let mut words = words.into_iter();
        let mut buffer = [0u32; WORDS_AT_ONCE];
        'buffers: loop {
            let mut len = 0;
            for (slot, word) in buffer.iter_mut().zip(&mut words) {
                *slot = word;
                len += 1;
            }
            let mut rest = &buffer[..len];
            while let Some((&word, after)) = rest.split_first() {
                outcome = one_word(&mut parts, decoded, thread, word, &mut pending);
                if outcome.is_err() {
                    break 'buffers;
                }
                parts.tag += 1;
                let (followed, fault) =
                    express::follow(&mut parts, decoded, thread, after, &mut pending);
                done += 1 + followed;
                rest = &after[followed..];
                if fault.is_err() {
                    outcome = fault;
                    break 'buffers;
                }
            }
            if len < WORDS_AT_ONCE {
                break;
            }
        }
        pending.write_out(&mut parts, &decoded.shared);
        outcome
    });
    (done, outcome)
}

/// How many words [`pacr_words`] takes from its iterator at a time: a run
/// of express instructions of a single row each can have as many waiting.
const WORDS_AT_ONCE: usize = 64;

/// One `PACR` word, with its configuration decoded. An express
/// instruction's rows may wait in `pending`; any other instruction's
/// effects come after the rows waiting are written.
#[inline]
fn one_word(
    parts: &mut Parts<'_>,
    decoded: &mut config::Decoded,
    thread: usize,
    word: u32,
    pending: &mut express::Pending,
) -> Result<()> {
    let slot = match decoded.prepared.find(word, thread) {
        Some(slot) => slot,
        None => {
            let arch = parts.arch;
            let f = PacrFields::decode(arch, &Pacr::from_word(arch, word))?;
            let prep = prepare(parts, f, thread, decoded)?;
            decoded.prepared.insert(word, thread, prep)
        }
    };
    let config::Decoded {
        shared,
        packers,
        stages,
        prepared,
        ..
    } = decoded;
    let prep = prepared.at(slot);
    parts.take_datums(prep)?;
    if let (Some(x), true) = (&prep.express, pending.on()) {
        if x.defer(parts, prep, shared, &packers[0], pending)? {
            return Ok(());
        }
    }
    pending.write_out(parts, shared);
    execute(parts, prep, shared, packers, stages)
}

/// What a `PACR` reads and changes besides its decoded configuration.
struct Parts<'m> {
    arch: Arch,
    adcs: &'m mut Adcs,
    units: &'m mut [PackerUnit; 4],
    dst: &'m Dst,
    l1: &'m mut L1,
    /// `PackerState::l1_dest_addr_offset`.
    l1_dest_addr_offset: [u16; 4],
    /// `PackerState::force_general_path`.
    general: bool,
    /// Not `PackerState::allow_read_interface_group_crossing`.
    strict_groups: bool,
    /// The instruction's index in issue order (tags its L1 writes).
    tag: u64,
    /// Where each datum's stages are recorded, when the machine observes.
    probe: Option<&'m mut Observer>,
    /// `Machine::datums`.
    datums: &'m mut DatumBudget,
}

impl Parts<'_> {
    /// Count the datums `prep` reads with the counters as they are, each
    /// packer's `InputNumDatums` ([`input::accepted_count`]), towards the
    /// run's datum budget, or the fault of reading past it. A packer whose
    /// ADC set does not exist, or whose count the input address generator
    /// refuses, is counted as reading none: the instruction has that fault
    /// instead.
    #[inline]
    fn take_datums(&mut self, prep: &prepared::Prepared) -> Result<()> {
        let flush = prep.fields.flush;
        let datums = prep.units().iter().fold(0u64, |sum, u| {
            let n = (self.adcs.values(u.adc(), Unit::Packers))
                .and_then(|[ch0, ch1]| input::accepted_count(ch0[0], ch1[0], flush));
            sum + u64::from(n.unwrap_or(0))
        });
        self.datums.take(datums)
    }
}

/// Run `body` with the configuration an instruction of `thread` sees,
/// decoded (or kept from the last instruction), and the rest of the
/// machine.
#[inline]
fn with_config(
    m: &mut Machine,
    thread: usize,
    body: impl FnOnce(Parts<'_>, &mut config::Decoded) -> Result<()>,
) -> Result<()> {
    let arch = m.arch();
    let Machine {
        config,
        thread_config,
        adcs,
        dst,
        l1,
        packer,
        issued,
        datums,
        observer,
        ..
    } = m;
    let PackerState {
        units,
        l1_dest_addr_offset,
        force_general_path,
        allow_read_interface_group_crossing,
        config_cache,
    } = packer;
    let decoded = config::Decoded::refresh(config_cache, config, thread_config, thread);
    let parts = Parts {
        arch,
        adcs,
        units,
        dst,
        l1,
        l1_dest_addr_offset: *l1_dest_addr_offset,
        general: *force_general_path || observer.is_some(),
        strict_groups: !*allow_read_interface_group_crossing,
        tag: *issued,
        probe: observer.as_deref_mut(),
        datums,
    };
    body(parts, decoded)
}

/// The instruction's choices, or its first fault: each packer's choices
/// and counters are checked before the next packer's.
fn prepare(
    parts: &Parts<'_>,
    f: PacrFields,
    thread: usize,
    decoded: &config::Decoded,
) -> Result<prepared::Prepared> {
    let mut prep = prepared::Prepared::new(parts.arch, f, thread, decoded, |p, adc| {
        let Some([ch0, ch1]) = parts.adcs.values(adc, Unit::Packers) else {
            return Err(input::no_adc_set(adc));
        };
        input::check_count(ch0[0], ch1[0], p, f.flush)
    })?;
    prep.express = express::Express::new(parts.arch, &prep, decoded);
    Ok(prep)
}

/// The body of [`pacr_word`] once its configuration is decoded and its choices
/// made.
fn execute(
    parts: &mut Parts<'_>,
    prep: &prepared::Prepared,
    shared: &Shared,
    pks: &[PackerConfig; 4],
    stages: &mut [[Option<Stages>; 2]; 4],
) -> Result<()> {
    if let Some(x) = &prep.express {
        if !parts.general && x.run(parts, prep, shared, &pks[0])? {
            return Ok(());
        }
    }
    let f = &prep.fields;
    let packer0_initial = output::initial_addr(&pks[0]);
    let Parts {
        adcs,
        units,
        dst,
        l1,
        l1_dest_addr_offset,
        general,
        strict_groups,
        tag,
        probe,
        ..
    } = parts;
    let (dst, general, strict_groups, tag) = (&**dst, *general, *strict_groups, *tag);

    // Both address generators run as the instruction starts: every
    // packer's faults come before any packer writes.
    for u in prep.units() {
        let Some([ch0, ch1]) = adcs.values(u.adc(), Unit::Packers) else {
            return Err(input::no_adc_set(u.adc()));
        };
        input::check_count(ch0[0], ch1[0], u.packer(), f.flush)?;
    }

    for u in prep.units() {
        let (p, adc) = (u.packer(), u.adc());
        let pk = &pks[p];
        // The counters are as they were above: packing does not move them.
        let Some(counters) = adcs.values(adc, Unit::Packers) else {
            return Err(input::no_adc_set(adc));
        };
        let ip = input::plan_from(shared, pk, counters, adc, p, f.zero_write, f.flush);
        let outs = OutputInputs {
            packer0_initial,
            ch1: counters[1],
            l1_dest_addr_offset: l1_dest_addr_offset[p],
            performing_compression: u.compress,
        };
        let unit = &mut units[p];
        output::start(shared, pk, p, &outs, &mut unit.streams);
        let ctx = Context {
            shared,
            pk,
            packer: p,
            fields: f,
            compress: u.compress,
            tag,
            general,
            strict_groups,
        };
        let slot = &mut stages[p][matches!(ip.source, Source::L1 { .. }) as usize];
        ctx.run(unit, dst, l1, &ip, slot, probe.as_deref_mut())?;
    }

    // `ADDR_MOD_PACK_SEC[AddrMod]` steps channel 0 (input) and channel 1
    // (output) of every ADC set used.
    for adc in (0..ADC_SETS).filter(|a| prep.uses_adc(*a)) {
        adcs.step_yz(adc, Unit::Packers, &prep.steps)?;
    }
    Ok(())
}

/// One packer's share of one instruction.
struct Context<'a> {
    shared: &'a Shared,
    pk: &'a PackerConfig,
    packer: usize,
    fields: &'a PacrFields,
    compress: bool,
    tag: u64,
    general: bool,
    strict_groups: bool,
}

/// The per-datum stages, decided from the configuration alone (and from
/// whether the packer reads L1), so kept with the decoded configuration.
#[derive(Clone, Copy, Debug)]
pub(super) struct Stages {
    early: EarlyConversion,
    /// The Blackhole FP32 → FP16 mode: ReLU sees the TF32 value.
    relu_on_tf32: bool,
    /// What a masked datum becomes, after ReLU.
    edge_fill: Intermediate,
    /// This packer's mask is `0xFFFF` wherever the tile position is (the
    /// masks it can select are all ones), so no datum is masked.
    edge_unmasked: bool,
    relu: Relu,
    histogram: bool,
    threshold: Option<(DataFormat, u32)>,
    down: Downsample,
    late: Late,
    acc: Option<AccFormat>,
    /// Whether the row fast path applies: no stage after ReLU is active.
    row_path: bool,
    /// The row fast path's kernel, when no per-datum stage is active.
    fast: Option<fast::Kernel>,
}

/// Where converted datums go: the BFP assembler, compression, the streams.
struct Sink<'a> {
    streams: &'a mut Streams,
    bfp: &'a mut BfpAssembler,
    compressor: &'a mut Compressor,
    l1: &'a mut L1,
    late: Late,
    acc: Option<AccFormat>,
    compress: bool,
    tag: u64,
    /// Datums emitted by this instruction and how many it will emit.
    emitted: u32,
    total: u32,
    /// Whether the instruction's last datum ends the compression row.
    row_ends: bool,
    probe: Option<&'a mut Observer>,
}

impl Context<'_> {
    fn early_config(&self) -> Result<EarlyConfig> {
        Ok(EarlyConfig {
            read_32b_data: self.shared.read_32b_data,
            read_raw: self.shared.read_raw,
            read_unsigned: self.shared.read_unsigned,
            round_10b_mant: self.shared.round_10b_mant,
            intermediate: DataFormat::decode(self.shared.intermediate_code as u32)?,
            shift_amount: self.shared.shift_amount()?,
        })
    }

    /// Choose every stage, refusing what is undefined or unmodelled.
    #[inline(never)]
    fn stages(&self, source: Source) -> Result<Stages> {
        let sh = self.shared;
        let pk = self.pk;
        let out = pk.out_format()?;
        let late = Late::select(out, pk.lf8_4b_exp);
        if pk.lf8_4b_exp && out == DataFormat::Lf8 && sh.arch == Arch::WormholeB0 {
            return Err(Fault::unsupported(
                "Pac_LF8_4b_exp does not exist on Wormhole B0",
            ));
        }
        if pk.dis_shared_exp_assembler && out.is_bfp() {
            return Err(Fault::unsupported(format!(
                "Dis_shared_exp_assembler with the BFP output {out}: no source defines the \
                 output when the shared-exponent assembler is disabled"
            )));
        }
        let acc = if pk.pack_l1_acc {
            if self.compress {
                return Err(Fault::unsupported(
                    "Pack_L1_Acc together with zero compression: no source defines accumulating \
                     a compressed stream",
                ));
            }
            Some(AccFormat::for_output(out)?)
        } else {
            None
        };
        let threshold = if pk.exp_threshold_en {
            let in_format = pk.in_format()?;
            if in_format == DataFormat::Bfp2A {
                // Checked before the early conversion is matched against
                // In_data_format, so the run names this rule.
                threshold::apply(Intermediate::Fp16(0), in_format, pk.exp_threshold)?;
            }
            Some((in_format, pk.exp_threshold))
        } else {
            None
        };
        let early = match source {
            Source::L1 { .. } => EarlyConversion::Fp32Identity,
            _ => EarlyConversion::select(sh.arch, &self.early_config()?)?,
        };
        if !matches!(source, Source::L1 { .. }) {
            let produced = early.apply(0).format();
            if produced.code() != pk.in_format_code & 0xF {
                return Err(Fault::undefined(format!(
                    "In_data_format (LateFromFormat) = {} but the early conversion produces {}: \
                     the late conversion would misread every datum (Packers/FormatConversion.md, \
                     \"Configuring the conversions\")",
                    pk.in_format_code, produced
                )));
            }
        }
        let relu = Relu::select(sh.apply_relu, sh.relu_threshold)?;
        let edge_all_pass = sh.edge.passes_all();
        // A masked datum replaces the early conversion's output and then
        // goes through ReLU like any other (EdgeMasking.md, `FetchFromDst`,
        // feeds ReLU.md's `ReLUStage`).
        let edge_fill = if edge_all_pass {
            edge_mask::zero_of(early.apply(0))
        } else {
            relu.apply(edge_mask::fill(early.apply(0), sh.edge.negative_infinity)?)?
        };
        let mut st = Stages {
            early,
            relu_on_tf32: early == EarlyConversion::Fp32ToFp16ViaTf32 && relu != Relu::Off,
            edge_fill,
            edge_unmasked: edge_all_pass || sh.edge.never_masks(self.packer),
            relu,
            histogram: sh.histogram_enable,
            threshold,
            down: Downsample::new(pk.downsample_mask),
            late,
            acc,
            row_path: false,
            fast: None,
        };
        st.row_path = st.row_path(self.compress);
        st.fast = st.kernel(self.compress);
        Ok(st)
    }

    /// Run the packer for this instruction: fetch, convert, emit, and on
    /// `Last` / `Flush` drain the buffers.
    /// `stages` caches [`Context::stages`] for this packer and source kind.
    fn run(
        &self,
        unit: &mut PackerUnit,
        dst: &Dst,
        l1: &mut L1,
        plan: &InputPlan,
        stages: &mut Option<Stages>,
        probe: Option<&mut Observer>,
    ) -> Result<()> {
        let f = self.fields;
        let bh = input::uses_read_interfaces(self.shared.arch);
        if !unit.tile_position_live {
            unit.tile_position = TilePosition::default();
        }
        // Blackhole: `count` datums from each enabled read interface's row.
        let rows_per_instr = if bh { f.read_interfaces.count() } else { 1 };
        let datums = plan.count * rows_per_instr;
        let ends_row = !f.concat || f.last || f.flush;
        let mut used = None;
        if datums > 0 {
            let st: &Stages = match stages {
                Some(st) => st,
                None => stages.insert(self.stages(plan.source)?),
            };
            let kept = rows_per_instr * st.down.kept(plan.count);
            let PackerUnit {
                streams,
                bfp,
                compressor,
                tile_position,
                histogram,
                ..
            } = unit;
            if self.compress && !compressor.rsi_started {
                streams.rsi.push(l1, &0u16.to_le_bytes(), None, self.tag)?;
                compressor.rsi_started = true;
            }
            let mut sink = Sink {
                streams,
                bfp,
                compressor,
                l1,
                late: st.late,
                acc: st.acc,
                compress: self.compress,
                tag: self.tag,
                emitted: 0,
                total: kept,
                row_ends: ends_row,
                probe,
            };
            match plan.source {
                Source::Dst { start } if bh => self.run_read_interfaces(
                    st,
                    &mut sink,
                    tile_position,
                    histogram,
                    dst,
                    start,
                    plan.count,
                )?,
                Source::Dst { start } => self.run_contiguous(
                    st,
                    &mut sink,
                    tile_position,
                    histogram,
                    dst,
                    start,
                    plan.count,
                )?,
                Source::DevNull => {
                    let zero = edge_mask::zero_of(st.early.apply(0));
                    for j in 0..datums {
                        self.after_fetch(
                            st,
                            &mut sink,
                            histogram,
                            zero,
                            j % plan.count.max(1),
                            PackSource::DevNull,
                        )?;
                    }
                }
                Source::L1 {
                    addr,
                    bytes_per_datum,
                } => {
                    if bh {
                        return Err(Fault::unimplemented(
                            "Blackhole packer reading L1 (Source_interface_selection): how the \
                             read interfaces apply is not documented",
                        ));
                    }
                    self.run_l1(st, &mut sink, histogram, addr, bytes_per_datum, plan.count)?;
                }
            }
            if self.compress && ends_row && sink.emitted > 0 {
                let idx = sink.compressor.row_end_index();
                sink.streams
                    .rsi
                    .push(sink.l1, &idx.to_le_bytes(), None, self.tag)?;
            }
            if self.compress {
                sink.compressor.row_open = !ends_row;
            }
            used = Some(st);
        }
        if f.last || f.flush {
            self.finish(unit, l1, used)?;
            unit.tile_position_live = false;
        } else {
            unit.tile_position_live = true;
        }
        Ok(())
    }

    /// `Last` / `Flush`: complete a compressed group, pad and write every
    /// buffer, and ask for fresh addresses next time.
    #[inline(never)]
    fn finish(&self, unit: &mut PackerUnit, l1: &mut L1, stages: Option<&Stages>) -> Result<()> {
        let (late, acc) = match stages {
            Some(s) => (s.late, s.acc),
            None => {
                let out = self.pk.out_format()?;
                let acc = if self.pk.pack_l1_acc && !self.compress {
                    Some(AccFormat::for_output(out)?)
                } else {
                    None
                };
                (Late::select(out, self.pk.lf8_4b_exp), acc)
            }
        };
        if self.compress {
            let n = unit.compressor.in_group();
            if n > 0 {
                let data = &mut unit.streams.data;
                let mut written = n;
                match late {
                    Late::Plain { bytes, .. } => {
                        let zeros = [0u8; 4];
                        for _ in n..32 {
                            data.push(l1, &zeros[..bytes], None, self.tag)?;
                        }
                    }
                    Late::Bfp { width, .. } => {
                        if let Some(g) = unit.bfp.pad() {
                            late::emit_group(&mut unit.streams, l1, width, &g, self.tag)?;
                            written = n.div_ceil(16) * 16;
                        }
                        for _ in written / 16..2 {
                            let zeros = [0u8; 16];
                            unit.streams.data.push(
                                l1,
                                &zeros[..width.group_bytes()],
                                None,
                                self.tag,
                            )?;
                        }
                    }
                }
                let block = unit.compressor.final_counters_block();
                unit.streams.data.push(l1, &block, None, self.tag)?;
            }
            unit.compressor.reset();
        } else if unit.bfp.pending() > 0 {
            return Err(Fault::unsupported(format!(
                "Last/Flush with {} of 16 datums in the BFP shared-exponent assembler: no \
                 source says how a partial group is completed",
                unit.bfp.pending()
            )));
        }
        unit.streams.flush(l1, acc, self.tag)
    }

    /// Blackhole: each enabled read interface reads `count` datums of one
    /// `Dst` row, from the start column on; the `k`-th enabled interface's
    /// row sits at tile position `TilePosition + k` for edge masking.
    #[allow(clippy::too_many_arguments)]
    fn run_read_interfaces(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        tp: &mut TilePosition,
        hist: &mut ExponentHistogram,
        dst: &Dst,
        start: u32,
        count: u32,
    ) -> Result<()> {
        let sh = self.shared;
        let col0 = start & 0xF;
        if col0 + count > 16 {
            return Err(Fault::unsupported(format!(
                "Blackhole read interfaces take datums from one Dst row each; an ADC X range \
                 of {count} datums from column {col0} crosses the row end, which BlackholeA0 \
                 PACR.md does not describe"
            )));
        }
        let a = sh.dst_addressing;
        let interfaces = self.fields.read_interfaces;
        let start_row = start >> 4;
        interfaces.check(start_row, a.remap_addrs, a.swizzle_32b, self.strict_groups)?;
        // The rows of the enabled interfaces, in interface order.
        let mut listed = [0u32; 4];
        let mut enabled = 0;
        for i in 0..4 {
            if let Some(row) = interfaces.row(start_row, i) {
                listed[enabled] = row;
                enabled += 1;
            }
        }
        let rows = &listed[..enabled];
        if !self.fast_rows(st, sink, dst, rows, col0, count)? {
            self.interface_rows(st, sink, tp, hist, dst, rows, col0, count)?;
        }
        tp.advance_rows(
            self.fields.read_interfaces.count(),
            self.pk.reads_per_xy_plane,
        );
        Ok(())
    }

    /// The rows of [`Context::run_read_interfaces`] one at a time, each
    /// through the row fast path where its edge mask lets every datum pass,
    /// datum by datum otherwise.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn interface_rows(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        tp: &TilePosition,
        hist: &mut ExponentHistogram,
        dst: &Dst,
        rows: &[u32],
        col0: u32,
        count: u32,
    ) -> Result<()> {
        let sh = self.shared;
        let a = sh.dst_addressing;
        let z = self.pk.dest_zoffset.wrapping_add(tp.z);
        for (k, row) in rows.iter().enumerate() {
            let mask = if st.edge_unmasked {
                0xFFFF
            } else {
                sh.edge.mask(self.packer, tp.y.wrapping_add(k as u32), z)
            };
            let cells = read_row(dst, sh.arch, a, st.early.reads_32b(), *row);
            if self.fast_row(st, sink, &cells, col0, count, mask)? {
                continue;
            }
            for j in 0..count {
                let col = col0 + j;
                let cell = cells[col as usize];
                let v = self.fetch(st, cell, mask, col)?;
                let src = PackSource::Dst {
                    row: *row,
                    col,
                    cell,
                    passed_edge_mask: edge_mask::passes(mask, col),
                };
                self.after_fetch(st, sink, hist, v, j, src)?;
            }
        }
        Ok(())
    }

    /// Wormhole: `count` contiguous datums from datum index `start`, the
    /// tile position advancing per datum.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn run_contiguous(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        tp: &mut TilePosition,
        hist: &mut ExponentHistogram,
        dst: &Dst,
        start: u32,
        count: u32,
    ) -> Result<()> {
        let sh = self.shared;
        let a = sh.dst_addressing;
        let mut j = 0;
        while j < count {
            let idx = (start + j) & 0x3FFF;
            let row = idx >> 4;
            let col0 = idx & 0xF;
            let n = (16 - col0).min(count - j);
            let cells = read_row(dst, sh.arch, a, st.early.reads_32b(), row);
            if st.edge_unmasked
                && !st.histogram
                && self.fast_row(st, sink, &cells, col0, n, 0xFFFF)?
            {
                tp.advance_datums(n, self.pk.reads_per_xy_plane, self.pk.yz_transposed);
                j += n;
                continue;
            }
            for c in col0..col0 + n {
                let mask = if st.edge_unmasked {
                    0xFFFF
                } else {
                    let z = self.pk.dest_zoffset.wrapping_add(tp.z);
                    sh.edge.mask(self.packer, tp.y, z)
                };
                tp.advance_datum(self.pk.reads_per_xy_plane, self.pk.yz_transposed);
                let cell = cells[c as usize];
                let v = self.fetch(st, cell, mask, c)?;
                let src = PackSource::Dst {
                    row,
                    col: c,
                    cell,
                    passed_edge_mask: edge_mask::passes(mask, c),
                };
                self.after_fetch(st, sink, hist, v, j, src)?;
                j += 1;
            }
        }
        Ok(())
    }

    /// Packer 0 reading L1 (InputAddressGenerator.md, `INPUT_SOURCE_L1`; the
    /// second early table of FormatConversion.md). No edge masking or ReLU:
    /// those act on datums from `Dst`.
    #[inline(never)]
    fn run_l1(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        hist: &mut ExponentHistogram,
        addr: u32,
        bytes_per_datum: u32,
        count: u32,
    ) -> Result<()> {
        let intermediate = DataFormat::decode(self.shared.intermediate_code as u32)?;
        for j in 0..count {
            let a = addr.wrapping_add(j * bytes_per_datum);
            let b = sink.l1.read(a, bytes_per_datum as usize).ok_or_else(|| {
                Fault::undefined(format!(
                    "packer 0 reads L1 byte address {a:#x}, outside L1 (L1 source mode)"
                ))
            })?;
            let mut w = [0u8; 4];
            w[..b.len()].copy_from_slice(b);
            let datum = u32::from_le_bytes(w);
            let v = crate::format::pack::l1_source_convert(
                datum,
                bytes_per_datum,
                intermediate,
                self.shared.read_unsigned,
            )?;
            self.after_fetch(st, sink, hist, v, j, PackSource::L1 { addr: a })?;
        }
        Ok(())
    }

    /// `FetchFromDst` (EdgeMasking.md) and the early conversion, with ReLU
    /// for the Blackhole mode that applies it to the TF32 value.
    #[inline]
    fn fetch(&self, st: &Stages, cell: u32, mask: u16, col: u32) -> Result<Intermediate> {
        if !edge_mask::passes(mask, col) {
            return Ok(st.edge_fill);
        }
        if st.relu_on_tf32 {
            // ttsim (TENSIX_EXECUTE_PACR, Blackhole, intermediate FP16 with
            // Read_32b_data) rounds to TF32, applies ReLU there and only then
            // saturates to FP16.
            let t = Intermediate::Tf32(fp32_round_to_tf32(decode_fp32(cell)));
            return Ok(match st.relu.apply(t)? {
                Intermediate::Tf32(x) => Intermediate::Fp16(e8_to_e5(x, 10)),
                other => other,
            });
        }
        let v = st.early.apply(cell);
        st.relu.apply(v)
    }

    /// The stages after ReLU: histogram, thresholding, downsampling, then
    /// the late conversion and output.
    #[inline]
    fn after_fetch(
        &self,
        st: &Stages,
        sink: &mut Sink<'_>,
        hist: &mut ExponentHistogram,
        v: Intermediate,
        j: u32,
        source: PackSource,
    ) -> Result<()> {
        if st.histogram && matches!(source, PackSource::Dst { .. }) {
            hist.observe(v)?;
        }
        let relu = v;
        let v = match st.threshold {
            Some((fmt, t)) => threshold::apply(v, fmt, t)?,
            None => v,
        };
        let kept = st.down.keep(j);
        if let Some(p) = sink.probe.as_deref_mut() {
            self.observe_datum(st, p, source, relu, v, kept);
        }
        if !kept {
            return Ok(());
        }
        sink.emit(st.late.convert(v)?)
    }

    /// Record one datum's stages up to downsampling; [`Sink`] adds where it
    /// goes.
    #[cold]
    fn observe_datum(
        &self,
        st: &Stages,
        p: &mut Observer,
        source: PackSource,
        relu: Intermediate,
        thresholded: Intermediate,
        kept: bool,
    ) {
        let early = match source {
            PackSource::Dst {
                cell,
                passed_edge_mask: true,
                ..
            } => st.early.apply(cell),
            _ => relu,
        };
        p.pack.push(PackDatum {
            instruction: self.tag,
            packer: self.packer as u8,
            source,
            early,
            relu,
            histogram_bin: match source {
                PackSource::Dst { .. } if st.histogram => {
                    histogram::exponent_field(relu).map(|e| histogram::bin_of(e) as u8)
                }
                _ => None,
            },
            thresholded,
            kept,
            late: None,
            compressed: self.compress,
            elided: false,
            l1_addr: None,
            l1_len: 0,
            bfp: None,
            accumulated: st.acc.is_some(),
        });
    }
}

impl Sink<'_> {
    /// One converted datum to compression, the BFP assembler and the
    /// streams.
    #[inline]
    fn emit(&mut self, c: Converted) -> Result<()> {
        let index = self.emitted;
        self.emitted += 1;
        if let Some(d) = self.probe.as_deref_mut().and_then(|p| p.pack.last_mut()) {
            d.late = Some(c);
        }
        if self.compress {
            let first = !self.compressor.row_open && index == 0;
            let last = self.row_ends && index + 1 == self.total;
            match self.compressor.admit(c.is_zero(), first, last) {
                Admit::Elide => {
                    if let Some(d) = self.probe.as_deref_mut().and_then(|p| p.pack.last_mut()) {
                        d.elided = true;
                    }
                    return Ok(());
                }
                Admit::Store { closed } => {
                    if let Some(block) = closed {
                        self.streams.data.push(self.l1, &block, None, self.tag)?;
                    }
                }
            }
        }
        self.store(c)
    }

    #[inline]
    fn store(&mut self, c: Converted) -> Result<()> {
        if self.probe.is_some() {
            self.observe_store(c);
        }
        match (c, self.late) {
            (Converted::Plain(x), Late::Plain { bytes, .. }) => {
                self.streams
                    .data
                    .push(self.l1, &x.to_le_bytes()[..bytes], self.acc, self.tag)
            }
            (Converted::Element(e), Late::Bfp { exp, width }) => {
                match self.bfp.push(exp, width, e)? {
                    Some(g) => {
                        if let Some(p) = self.probe.as_deref_mut() {
                            observe_group(p, self.streams, self.tag, width, &g);
                        }
                        late::emit_group(self.streams, self.l1, width, &g, self.tag)
                    }
                    None => Ok(()),
                }
            }
            _ => Err(Fault::unsupported(
                "internal: a converted datum does not match the late conversion",
            )),
        }
    }
}

impl Sink<'_> {
    /// Where the datum being stored goes: its L1 address (a plain output
    /// that is not compressed). A BFP datum learns its group when the group
    /// completes ([`observe_group`]).
    #[cold]
    fn observe_store(&mut self, c: Converted) {
        let data = &self.streams.data;
        let addr = data.byte_address.wrapping_add(data.pending() as u32);
        let compress = self.compress;
        let bytes = match self.late {
            Late::Plain { bytes, .. } => bytes as u8,
            Late::Bfp { .. } => 0,
        };
        let Some(p) = self.probe.as_deref_mut() else {
            return;
        };
        let Some(d) = p.pack.last_mut() else { return };
        if let (Converted::Plain(_), false) = (c, compress) {
            d.l1_addr = Some(addr);
            d.l1_len = bytes;
        }
    }
}

/// Record a finished BFP group with the L1 addresses its exponent and
/// datums are about to go to, and tell its 16 datums (the last 16 BFP
/// elements stored) which group and place they have. A group that never
/// completes, or that zero compression pads, leaves its datums without one.
#[cold]
fn observe_group(p: &mut Observer, streams: &Streams, tag: u64, width: BfpWidth, g: &BfpGroup) {
    let at = |s: &stream::OutStream| s.byte_address.wrapping_add(s.pending() as u32);
    let index = p.bfp_groups.len();
    let mut elements = [0u16; 16];
    let mut found = 0;
    for d in p.pack.iter_mut().rev() {
        if let (Some(Converted::Element(e)), true, false) = (d.late, d.kept, d.elided) {
            found += 1;
            elements[16 - found] = e;
            d.bfp = Some((index, (16 - found) as u8));
            if found == 16 {
                break;
            }
        }
    }
    p.bfp_groups.push(BfpGroupRecord {
        instruction: tag,
        elements,
        shared_exp: g.shared_exp,
        datums: g.datums,
        width_bits: width.datum_bits() as u8,
        exp_addr: at(&streams.exp),
        data_addr: at(&streams.data),
    });
}

/// The `Dst16b` row `row` (taken modulo 1024) as [`read_row`] reads it
/// with 16-bit reads: all zero when the row is not valid.
#[inline]
fn dst_row16(dst: &Dst, arch: Arch, a: crate::state::dst::DstAddressing, row: u32) -> &[u16; 16] {
    const ZERO: [u16; 16] = [0; 16];
    let s = adj16(arch, a, row & 0x3FF);
    if dst.is_valid(s) {
        dst.row(s)
    } else {
        &ZERO
    }
}

/// The halves of `Dst32b` row `row` (taken modulo 512) as [`read_row`]
/// reads them with 32-bit reads: the high halves at storage row `Adj32`,
/// the low halves eight rows on; all zero when the row is not valid.
#[inline]
fn dst_row32(
    dst: &Dst,
    arch: Arch,
    a: crate::state::dst::DstAddressing,
    row: u32,
) -> [&[u16; 16]; 2] {
    const ZERO: [u16; 16] = [0; 16];
    let s = adj32(arch, a, row & 0x1FF);
    if dst.is_valid(s) {
        [dst.row(s), dst.row(s + 8)]
    } else {
        [&ZERO, &ZERO]
    }
}

/// The 16 cells of one `Dst` row as the packer reads them: `Dst32b` values
/// ([`dst_row32`]) or `Dst16b` values ([`dst_row16`]), zero where the row is
/// not valid (never written).
#[inline]
fn read_row(
    dst: &Dst,
    arch: Arch,
    a: crate::state::dst::DstAddressing,
    wide: bool,
    row: u32,
) -> [u32; 16] {
    let mut cells = [0; 16];
    if wide {
        let [hi, lo] = dst_row32(dst, arch, a, row);
        for (c, (h, l)) in cells.iter_mut().zip(hi.iter().zip(lo)) {
            *c = dst32_join(*h, *l);
        }
    } else {
        for (c, v) in cells.iter_mut().zip(dst_row16(dst, arch, a, row)) {
            *c = *v as u32;
        }
    }
    cells
}
