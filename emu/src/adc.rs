//! Address counters (ADCs).
//!
//! Each of the three ADC sets (usually one per Tensix thread) holds three
//! counter sets: unpacker 0, unpacker 1 and the packers. Each counter set has
//! two channels, and each channel has X, Y, Z and W counters, each paired with
//! a carriage-return copy (`X_Cr`, `Y_Cr`, `Z_Cr`, `W_Cr`). The unpackers and
//! packers form their input and output addresses from these counters.
//!
//! Sources, all in tenstorrent/tt-isa-documentation:
//! - `WormholeB0/TensixTile/TensixCoprocessor/ADCs.md` (shared with Blackhole,
//!   see `BlackholeA0/TensixTile/TensixCoprocessor/ADCs.md`): the state and the
//!   counter widths.
//! - `SETADC.md`, `SETADCXX.md`, `SETADCXY.md`, `SETADCZW.md`, `INCADCXY.md`,
//!   `INCADCZW.md`, `ADDRCRXY.md`, `ADDRCRZW.md` (same directory): the
//!   instructions' functional models. `SETADCXX.md` is read from the
//!   jasondavies/tt-isa-documentation fork, the only stored copy of that page.
//! - `Diagrams/Src/Bits32.lua`: the instruction encodings.
//! - `Packers/InputAddressGenerator.md`, `Packers/OutputAddressGenerator.md`
//!   and `UNPACR_Regular.md`: how `PACR` and `UNPACR` step the counters
//!   afterwards; [`Adcs::apply`] provides those steps.
//!
//! Every counter is an unsigned integer of fixed width (see [`Dim::width`]);
//! every write and every increment wraps modulo 2^width, as assignment to the
//! documentation's `uintN_t` fields does.

use crate::arch::Arch;
use crate::fault::{Fault, FaultKind, Result};
use crate::isa;

/// Number of ADC sets (`ADCs[3]` in `ADCs.md`). The index is usually the
/// current Tensix thread, but `PACR` (`OvrdThreadId`) and `UNPACR`
/// (`MultiContextMode`) can select another one.
pub const ADC_SETS: usize = 3;

/// One of the three counter sets within an ADC set.
///
/// The order matches `CntSetMask` (the `U0`, `U1` and `PK` bits `[23:21]` of
/// every ADC instruction): bit 0 selects unpacker 0, bit 1 unpacker 1, bit 2
/// the packers. All four Wormhole packers share the one packer set
/// (`ADCs.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    Unpacker0,
    Unpacker1,
    Packers,
}

impl Unit {
    pub const ALL: [Unit; 3] = [Unit::Unpacker0, Unit::Unpacker1, Unit::Packers];

    /// The `CntSetMask` bit that selects this unit.
    pub fn cnt_set_mask_bit(self) -> u32 {
        1 << self.index()
    }

    /// Unpacker `0` or `1` (`UNPACR`'s `WhichUnpacker`).
    pub fn unpacker(which: u32) -> Option<Unit> {
        match which {
            0 => Some(Unit::Unpacker0),
            1 => Some(Unit::Unpacker1),
            _ => None,
        }
    }

    fn index(self) -> usize {
        match self {
            Unit::Unpacker0 => 0,
            Unit::Unpacker1 => 1,
            Unit::Packers => 2,
        }
    }
}

/// One of the four counters of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    X,
    Y,
    Z,
    W,
}

impl Dim {
    pub const ALL: [Dim; 4] = [Dim::X, Dim::Y, Dim::Z, Dim::W];

    /// The counter selected by `SETADC`'s two-bit `XYZW` field.
    pub fn from_xyzw(xyzw: u32) -> Option<Dim> {
        Dim::ALL.get(usize::try_from(xyzw).ok()?).copied()
    }

    /// Width in bits of this counter and of its `_Cr` copy.
    ///
    /// `ADCs.md`: `X` is `uint18_t`, `Y` is `uint13_t`, and `Z` and `W` are
    /// `uint8_t` on Wormhole B0 but `uint13_t` on Blackhole. (On Blackhole some
    /// consumers see only the low eight bits of `Z` and `W`; that truncation
    /// belongs to those consumers, not to the counters.) tenstorrent/ttsim
    /// `src/sim.h` uses the same widths.
    pub fn width(self, arch: Arch) -> u32 {
        match (self, arch) {
            (Dim::X, _) => 18,
            (Dim::Y, _) => 13,
            (Dim::Z | Dim::W, Arch::WormholeB0) => 8,
            (Dim::Z | Dim::W, Arch::Blackhole) => 13,
        }
    }

    /// `2^width - 1`.
    pub fn mask(self, arch: Arch) -> u32 {
        (1u32 << self.width(arch)) - 1
    }

    fn index(self) -> usize {
        match self {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
            Dim::W => 3,
        }
    }
}

/// A counter and its carriage-return copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counter {
    pub value: u32,
    /// The `_Cr` copy: the value `ADDRCR*` and `PACR`'s carriage return
    /// advance and then copy into `value`.
    pub cr: u32,
}

/// One channel: X, Y, Z and W, each with its carriage-return copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Channel {
    counters: [Counter; 4],
}

impl Channel {
    pub fn counter(&self, dim: Dim) -> Counter {
        self.counters[dim.index()]
    }

    /// `[X, Y, Z, W]`.
    #[inline]
    pub fn values(&self) -> [u32; 4] {
        let [x, y, z, w] = self.counters;
        [x.value, y.value, z.value, w.value]
    }

    /// `[X_Cr, Y_Cr, Z_Cr, W_Cr]`.
    pub fn cr_values(&self) -> [u32; 4] {
        self.counters.map(|c| c.cr)
    }
}

/// The two channels of one unit (unpacker 0, unpacker 1 or the packers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CounterSet {
    pub channels: [Channel; 2],
}

/// A change to one counter. These are the only ways the documented
/// instructions change a counter; `PACR` and `UNPACR` use them through
/// [`Adcs::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CounterOp {
    /// `value = cr = n` (the `SET*` instructions).
    Set(u32),
    /// `value += n`; `cr` unchanged (`INCADC*`; `UNPACR`'s `Ch0YInc` etc.;
    /// `PACR`'s `ADDR_MOD_PACK_SEC` increment without `CR` or `Clear`).
    Increment(u32),
    /// `cr += n; value = cr` (`ADDRCR*`; `PACR`'s `ADDR_MOD_PACK_SEC` with
    /// `YsrcCR` / `YdstCR`).
    CarriageReturn(u32),
    /// `value = cr = 0` (`PACR`'s `ADDR_MOD_PACK_SEC` with `YsrcClear`,
    /// `YdstClear`, `ZsrcClear` or `ZdstClear`).
    Clear,
}

/// The steps `PACR` makes to the packers' Y and Z counters of one ADC set
/// once its addresses are formed (see [`Adcs::apply`]): `[channel][0]` for
/// the channel's Y counter, `[channel][1]` for its Z counter; channel 0 from
/// `ADDR_MOD_PACK_SEC`'s `src` fields, channel 1 from its `dst` fields.
/// Applied by [`Adcs::step_yz`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct YzSteps(pub [[CounterOp; 2]; 2]);

impl Default for YzSteps {
    /// Steps that change nothing.
    fn default() -> YzSteps {
        YzSteps([[CounterOp::Increment(0); 2]; 2])
    }
}

/// What a sequence of [`CounterOp`]s does to one counter, as a function of
/// the counter before it: every operation sets the value and its
/// carriage-return copy to a sum of what they were and a constant
/// (`Increment` adds to the value, `CarriageReturn` adds to the copy and
/// copies it to the value, `Clear` and `Set` replace both), so a whole
/// sequence does too, with each sum wrapping to the counter's width as each
/// step's does (the widths divide 32). Lets a run of `PACR`s, whose steps
/// follow from their words, work out any instruction's counters from those
/// at the run's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CounterEffect {
    /// The value after is `(value & from_value) + (cr & from_cr) + add`,
    /// each mask all ones or zero.
    from_value: u32,
    from_cr: u32,
    add: u32,
    /// The copy after is `(cr & cr_from_cr) + cr_add`.
    cr_from_cr: u32,
    cr_add: u32,
}

impl CounterEffect {
    /// No operations: the counter as it was.
    pub const NONE: CounterEffect = CounterEffect {
        from_value: !0,
        from_cr: 0,
        add: 0,
        cr_from_cr: !0,
        cr_add: 0,
    };

    /// This effect followed by `op` (as [`Adcs::apply`] does it).
    pub fn then(self, op: CounterOp) -> CounterEffect {
        match op {
            CounterOp::Increment(n) => CounterEffect {
                add: self.add.wrapping_add(n),
                ..self
            },
            CounterOp::CarriageReturn(n) => {
                let cr_add = self.cr_add.wrapping_add(n);
                CounterEffect {
                    from_value: 0,
                    from_cr: self.cr_from_cr,
                    add: cr_add,
                    cr_from_cr: self.cr_from_cr,
                    cr_add,
                }
            }
            CounterOp::Clear => CounterEffect::set(0),
            CounterOp::Set(n) => CounterEffect::set(n),
        }
    }

    /// The value and its copy both `n`, whatever they were.
    const fn set(n: u32) -> CounterEffect {
        CounterEffect {
            from_value: 0,
            from_cr: 0,
            add: n,
            cr_from_cr: 0,
            cr_add: n,
        }
    }

    /// The value after the effect, from `counter` before it, for a counter
    /// of width `mask`.
    #[inline(always)]
    pub fn value(&self, counter: Counter, mask: u32) -> u32 {
        (counter.value & self.from_value)
            .wrapping_add(counter.cr & self.from_cr)
            .wrapping_add(self.add)
            & mask
    }

    /// The counter after the effect, from `counter` before it.
    #[inline(always)]
    pub fn apply(&self, counter: Counter, mask: u32) -> Counter {
        Counter {
            value: self.value(counter, mask),
            cr: (counter.cr & self.cr_from_cr).wrapping_add(self.cr_add) & mask,
        }
    }
}

/// The [`CounterEffect`] of a sequence of [`YzSteps`] on each of the Y and Z
/// counters of both channels: `[channel][0]` for Y, `[channel][1]` for Z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct YzEffect(pub [[CounterEffect; 2]; 2]);

impl YzEffect {
    /// No steps.
    pub const NONE: YzEffect = YzEffect([[CounterEffect::NONE; 2]; 2]);

    /// This effect followed by `steps`.
    pub fn then(self, steps: &YzSteps) -> YzEffect {
        let [[a, b], [c, d]] = self.0;
        let [[p, q], [r, s]] = steps.0;
        YzEffect([[a.then(p), b.then(q)], [c.then(r), d.then(s)]])
    }
}

/// Decoded fields of `SETADC` (opcode 0x50). Bit positions from
/// `Diagrams/Src/Bits32.lua`; names as in tenstorrent/ttsim's instruction
/// table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SetAdcFields {
    /// `[23:21]`: bit 0 = `U0`, bit 1 = `U1`, bit 2 = `PK`.
    pub cnt_set_mask: u32,
    /// `[20]`: which channel.
    pub channel_index: u32,
    /// `[19:18]`: `XYZW`, the counter (0 = X, 1 = Y, 2 = Z, 3 = W).
    pub dimension_index: u32,
    /// `[17:0]`: `NewValue`. Its top two bits are `ThreadOverride`.
    pub value: u32,
}

impl From<&isa::Setadc> for SetAdcFields {
    fn from(i: &isa::Setadc) -> SetAdcFields {
        SetAdcFields {
            cnt_set_mask: i.cnt_set_mask,
            channel_index: i.channel_index,
            dimension_index: i.dimension_index,
            value: i.value,
        }
    }
}

/// Decoded fields of `SETADCXX` (opcode 0x5E), per `Bits32.lua`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SetAdcXxFields {
    /// `[23:21]`.
    pub cnt_set_mask: u32,
    /// `[9:0]`: `X0Val`, the new channel 0 X.
    pub x_start: u32,
    /// `[19:10]`: `X1Val`, the new channel 1 X. (tt-llk's
    /// `TT_SETADCXX_VALID` accepts 11 bits here; the documentation's encoding
    /// and ttsim have 10, which is what is used.)
    pub x_end2: u32,
}

impl From<&isa::Setadcxx> for SetAdcXxFields {
    fn from(i: &isa::Setadcxx) -> SetAdcXxFields {
        SetAdcXxFields {
            cnt_set_mask: i.cnt_set_mask,
            x_start: i.x_start,
            x_end2: i.x_end2,
        }
    }
}

/// Decoded fields shared by `SETADCXY`, `INCADCXY`, `ADDRCRXY`, `SETADCZW`,
/// `INCADCZW` and `ADDRCRZW`, per `Bits32.lua`.
///
/// Field names follow ttsim's table, which uses the XY names for the ZW
/// instructions too: in `SETADCZW`, `INCADCZW` and `ADDRCRZW`, `ch0_x` is the
/// channel 0 Z operand, `ch0_y` the channel 0 W operand, and likewise for
/// channel 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AdcPairFields {
    /// `[23:21]`: bit 0 = `U0`, bit 1 = `U1`, bit 2 = `PK`.
    pub cnt_set_mask: u32,
    /// `[19:18]`: `ThreadOverride`. Not in ttsim's table; the documentation
    /// makes any non-zero value `UnsupportedFunctionality`.
    pub thread_override: u32,
    /// `[17:15]`: channel 1 Y (or W).
    pub ch1_y: u32,
    /// `[14:12]`: channel 1 X (or Z).
    pub ch1_x: u32,
    /// `[11:9]`: channel 0 Y (or W).
    pub ch0_y: u32,
    /// `[8:6]`: channel 0 X (or Z).
    pub ch0_x: u32,
    /// `[3:0]`: which operands take effect: bit 0 = channel 0 X (Z),
    /// bit 1 = channel 0 Y (W), bit 2 = channel 1 X (Z), bit 3 = channel 1 Y
    /// (W). `INCADCXY` and `INCADCZW` have no such field and ignore it.
    pub bit_mask: u32,
}

/// The six XY/ZW instructions decode to the same fields; `INCADCXY` and
/// `INCADCZW` have no `bit_mask` and give 0 there.
macro_rules! pair_fields_from {
    ($insn:ident, $i:ident => $bit_mask:expr) => {
        impl From<&isa::$insn> for AdcPairFields {
            fn from($i: &isa::$insn) -> AdcPairFields {
                AdcPairFields {
                    cnt_set_mask: $i.cnt_set_mask,
                    thread_override: $i.thread_override,
                    ch1_y: $i.ch1_y,
                    ch1_x: $i.ch1_x,
                    ch0_y: $i.ch0_y,
                    ch0_x: $i.ch0_x,
                    bit_mask: $bit_mask,
                }
            }
        }
    };
}

pair_fields_from!(Setadcxy, i => i.bit_mask);
pair_fields_from!(Setadczw, i => i.bit_mask);
pair_fields_from!(Addrcrxy, i => i.bit_mask);
pair_fields_from!(Addrcrzw, i => i.bit_mask);
pair_fields_from!(Incadcxy, i => 0);
pair_fields_from!(Incadczw, i => 0);

/// What an XY/ZW instruction does to each operand it selects.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PairKind {
    /// `SETADCXY` / `SETADCZW`: set the counter and its `_Cr` copy, operands
    /// selected by `bit_mask`.
    Set,
    /// `INCADCXY` / `INCADCZW`: increment all four counters.
    Increment,
    /// `ADDRCRXY` / `ADDRCRZW`: carriage return, operands selected by
    /// `bit_mask`.
    CarriageReturn,
}

/// The ADC state of one Tensix coprocessor: `ADCs[3]` in `ADCs.md`.
///
/// The reset state is all zero. Construct it with [`Adcs::new`]: the counter
/// widths depend on the architecture, so there is no architecture-free
/// `Default`. (The plain data types [`Counter`], [`Channel`] and
/// [`CounterSet`] do implement `Default`, all zero.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adcs {
    arch: Arch,
    sets: [[CounterSet; 3]; ADC_SETS],
}

impl Adcs {
    /// The reset state: every counter and carriage-return copy zero.
    pub fn new(arch: Arch) -> Adcs {
        Adcs {
            arch,
            sets: Default::default(),
        }
    }

    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// Return every counter to zero.
    pub fn reset(&mut self) {
        self.sets = Default::default();
    }

    /// The counter set of `unit` in ADC set `index` (0..=2).
    #[inline]
    pub fn counter_set(&self, index: usize, unit: Unit) -> Option<&CounterSet> {
        Some(&self.sets.get(index)?[unit.index()])
    }

    /// `[[X, Y, Z, W] of channel 0, [X, Y, Z, W] of channel 1]`.
    #[inline]
    pub fn values(&self, index: usize, unit: Unit) -> Option<[[u32; 4]; 2]> {
        let [c0, c1] = &self.counter_set(index, unit)?.channels;
        Some([c0.values(), c1.values()])
    }

    /// `[[X_Cr, Y_Cr, Z_Cr, W_Cr] of channel 0, ... of channel 1]`.
    pub fn cr_values(&self, index: usize, unit: Unit) -> Option<[[u32; 4]; 2]> {
        let set = self.counter_set(index, unit)?;
        Some(set.channels.map(|c| c.cr_values()))
    }

    /// Overwrite one counter and its carriage-return copy independently, each
    /// truncated to the counter's width. For loading a state snapshot; no
    /// instruction does this.
    pub fn load(
        &mut self,
        index: usize,
        unit: Unit,
        channel: usize,
        dim: Dim,
        value: u32,
        cr: u32,
    ) -> Result<()> {
        let mask = dim.mask(self.arch);
        let counter = self.counter_mut(index, unit, channel, dim)?;
        counter.value = value & mask;
        counter.cr = cr & mask;
        Ok(())
    }

    /// Apply `op` to one counter of ADC set `index`, wrapping to the counter's
    /// width.
    ///
    /// This is the ADC side of the updates `PACR` and `UNPACR` make after
    /// they have formed their addresses:
    /// - `PACR` (`Packers/InputAddressGenerator.md` and
    ///   `Packers/OutputAddressGenerator.md`, functional model): for every ADC
    ///   set it used, on the packers' channel 0 (input) and channel 1
    ///   (output), `Y` takes `Clear` if `Ysrc/YdstClear`, else
    ///   `CarriageReturn(incr)` if `Ysrc/YdstCR`, else `Increment(incr)`; `Z`
    ///   takes `Clear` if `Zsrc/ZdstClear`, else `Increment(incr)`, all from
    ///   `ADDR_MOD_PACK_SEC[AddrMod]`.
    /// - `UNPACR` (`UNPACR_Regular.md`, end of the functional model): for the
    ///   current thread's ADC set and for `WhichADC` if different, on the
    ///   unpacker's channel 0 and channel 1, `Y` and `Z` take
    ///   `Increment(Ch0YInc)`, `Increment(Ch0ZInc)`, `Increment(Ch1YInc)` and
    ///   `Increment(Ch1ZInc)`.
    #[inline]
    pub fn apply(
        &mut self,
        index: usize,
        unit: Unit,
        channel: usize,
        dim: Dim,
        op: CounterOp,
    ) -> Result<()> {
        let mask = dim.mask(self.arch);
        let counter = self.counter_mut(index, unit, channel, dim)?;
        step(counter, op, mask);
        Ok(())
    }

    /// [`Adcs::apply`] for each of `steps`, on `unit` of ADC set `index`:
    /// both channels' Y and Z counters at once.
    #[inline(always)]
    pub fn step_yz(&mut self, index: usize, unit: Unit, steps: &YzSteps) -> Result<()> {
        let (y_mask, z_mask) = (Dim::Y.mask(self.arch), Dim::Z.mask(self.arch));
        let Some(set) = self.sets.get_mut(index) else {
            return Err(no_such_set(index));
        };
        let [c0, c1] = &mut set[unit.index()].channels;
        let (y, z) = (Dim::Y.index(), Dim::Z.index());
        // Every `UNPACR`, and most `PACR`s, only increment: with the
        // operations known to be increments, `step` is four additions.
        use CounterOp::Increment as Inc;
        let [[y0, z0], [y1, z1]] = match steps.0 {
            [[Inc(a), Inc(b)], [Inc(c), Inc(d)]] => {
                step(&mut c0.counters[y], Inc(a), y_mask);
                step(&mut c0.counters[z], Inc(b), z_mask);
                step(&mut c1.counters[y], Inc(c), y_mask);
                step(&mut c1.counters[z], Inc(d), z_mask);
                return Ok(());
            }
            ops => ops,
        };
        step(&mut c0.counters[y], y0, y_mask);
        step(&mut c0.counters[z], z0, z_mask);
        step(&mut c1.counters[y], y1, y_mask);
        step(&mut c1.counters[z], z1, z_mask);
        Ok(())
    }

    /// The Y and Z counters of channel `channel` of `unit` in ADC set `index`,
    /// with their widths as masks.
    #[inline]
    pub fn yz(&self, index: usize, unit: Unit, channel: usize) -> Option<[(Counter, u32); 2]> {
        let c = self.counter_set(index, unit)?.channels.get(channel)?;
        Some([
            (c.counter(Dim::Y), Dim::Y.mask(self.arch)),
            (c.counter(Dim::Z), Dim::Z.mask(self.arch)),
        ])
    }

    /// Apply `effect` to `unit` of ADC set `index`, as the steps it was
    /// worked out from would have been applied by [`Adcs::step_yz`].
    pub fn apply_yz(&mut self, index: usize, unit: Unit, effect: &YzEffect) -> Result<()> {
        let masks = [Dim::Y.mask(self.arch), Dim::Z.mask(self.arch)];
        let Some(set) = self.sets.get_mut(index) else {
            return Err(no_such_set(index));
        };
        let (y, z) = (Dim::Y.index(), Dim::Z.index());
        for (channel, [ey, ez]) in set[unit.index()].channels.iter_mut().zip(effect.0) {
            channel.counters[y] = ey.apply(channel.counters[y], masks[0]);
            channel.counters[z] = ez.apply(channel.counters[z], masks[1]);
        }
        Ok(())
    }

    /// `SETADC`: set one counter and its carriage-return copy to `NewValue`
    /// in every unit `cnt_set_mask` selects (`SETADC.md`, functional model).
    ///
    /// `NewValue`'s bits `[17:16]` are `ThreadOverride`; a non-zero value is
    /// `UnsupportedFunctionality` in the documentation and a fault here. The
    /// value written is therefore at most 16 bits, truncated to the counter's
    /// width (so `Y`, and `Z`/`W` on Wormhole B0, lose high bits).
    pub fn setadc(&mut self, thread: usize, f: SetAdcFields) -> Result<()> {
        const NAME: &str = "SETADC";
        check_thread(NAME, thread)?;
        check_width(NAME, "cnt_set_mask", f.cnt_set_mask, 3)?;
        check_width(NAME, "channel_index", f.channel_index, 1)?;
        check_width(NAME, "dimension_index", f.dimension_index, 2)?;
        check_width(NAME, "value", f.value, 18)?;
        check_thread_override(NAME, f.value >> 16)?;
        let Some(dim) = Dim::from_xyzw(f.dimension_index) else {
            return Err(field_too_wide(
                NAME,
                "dimension_index",
                f.dimension_index,
                2,
            ));
        };
        let channel = f.channel_index as usize;
        let mask = dim.mask(self.arch);
        let set = &mut self.sets[thread];
        each_selected_unit(f.cnt_set_mask, |unit| {
            let counter = &mut set[unit.index()].channels[channel].counters[dim.index()];
            step(counter, CounterOp::Set(f.value), mask);
        });
        Ok(())
    }

    /// `SETADCXX`: set channel 0 X and X_Cr to `x_start` and channel 1 X and
    /// X_Cr to `x_end2`, in every unit `cnt_set_mask` selects, always in the
    /// current thread's ADC set (`SETADCXX.md`, functional model; the
    /// instruction has no `ThreadOverride` field).
    pub fn setadcxx(&mut self, thread: usize, f: SetAdcXxFields) -> Result<()> {
        const NAME: &str = "SETADCXX";
        check_thread(NAME, thread)?;
        check_width(NAME, "cnt_set_mask", f.cnt_set_mask, 3)?;
        check_width(NAME, "x_start", f.x_start, 10)?;
        check_width(NAME, "x_end2", f.x_end2, 10)?;
        let mask = Dim::X.mask(self.arch);
        let set = &mut self.sets[thread];
        each_selected_unit(f.cnt_set_mask, |unit| {
            let channels = &mut set[unit.index()].channels;
            step(
                &mut channels[0].counters[Dim::X.index()],
                CounterOp::Set(f.x_start),
                mask,
            );
            step(
                &mut channels[1].counters[Dim::X.index()],
                CounterOp::Set(f.x_end2),
                mask,
            );
        });
        Ok(())
    }

    /// `SETADCXY`: for each operand `bit_mask` selects, set that X or Y
    /// counter and its carriage-return copy (`SETADCXY.md`, functional model).
    pub fn setadcxy(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op("SETADCXY", thread, f, [Dim::X, Dim::Y], PairKind::Set)
    }

    /// `SETADCZW`: as `SETADCXY` for Z and W (`SETADCZW.md`).
    pub fn setadczw(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op("SETADCZW", thread, f, [Dim::Z, Dim::W], PairKind::Set)
    }

    /// `INCADCXY`: add the four operands to channel 0 X and Y and channel 1 X
    /// and Y; the carriage-return copies are unchanged. There is no bit mask:
    /// all four counters are incremented, by zero where the operand is zero
    /// (`INCADCXY.md`, functional model).
    pub fn incadcxy(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op("INCADCXY", thread, f, [Dim::X, Dim::Y], PairKind::Increment)
    }

    /// `INCADCZW`: as `INCADCXY` for Z and W (`INCADCZW.md`).
    pub fn incadczw(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op("INCADCZW", thread, f, [Dim::Z, Dim::W], PairKind::Increment)
    }

    /// `ADDRCRXY`: for each operand `bit_mask` selects, add it to the
    /// carriage-return copy and then copy that into the counter
    /// (`X_Cr += X0Inc, X = X_Cr`; `ADDRCRXY.md`, functional model).
    pub fn addrcrxy(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op(
            "ADDRCRXY",
            thread,
            f,
            [Dim::X, Dim::Y],
            PairKind::CarriageReturn,
        )
    }

    /// `ADDRCRZW`: as `ADDRCRXY` for Z and W (`ADDRCRZW.md`).
    pub fn addrcrzw(&mut self, thread: usize, f: AdcPairFields) -> Result<()> {
        self.pair_op(
            "ADDRCRZW",
            thread,
            f,
            [Dim::Z, Dim::W],
            PairKind::CarriageReturn,
        )
    }

    /// The six XY/ZW instructions share one shape (the per-instruction pages'
    /// `ApplyTo`): for each selected unit of the current thread's ADC set,
    /// operand `ch0_x` goes to channel 0's first counter, `ch0_y` to its
    /// second, `ch1_x` and `ch1_y` likewise on channel 1.
    ///
    /// A zero `cnt_set_mask` or (where there is one) a zero `bit_mask` is a
    /// no-op here, as the functional models say. ttsim instead rejects both as
    /// `UnsupportedFunctionality` ("no-op mask"); the documentation takes
    /// precedence.
    fn pair_op(
        &mut self,
        name: &str,
        thread: usize,
        f: AdcPairFields,
        dims: [Dim; 2],
        kind: PairKind,
    ) -> Result<()> {
        check_thread(name, thread)?;
        check_width(name, "cnt_set_mask", f.cnt_set_mask, 3)?;
        check_width(name, "thread_override", f.thread_override, 2)?;
        check_width(name, "ch0_x", f.ch0_x, 3)?;
        check_width(name, "ch0_y", f.ch0_y, 3)?;
        check_width(name, "ch1_x", f.ch1_x, 3)?;
        check_width(name, "ch1_y", f.ch1_y, 3)?;
        if kind != PairKind::Increment {
            check_width(name, "bit_mask", f.bit_mask, 4)?;
        }
        check_thread_override(name, f.thread_override)?;

        let ([m0, m1], [d0, d1]) = (dims.map(|d| d.mask(self.arch)), dims.map(Dim::index));
        // Operand k's channel, counter, value and mask; it takes effect
        // where bit k of `selected` is set (`bit_mask`, or all four for an
        // increment).
        let operands = [
            (0, d0, f.ch0_x, m0),
            (0, d1, f.ch0_y, m1),
            (1, d0, f.ch1_x, m0),
            (1, d1, f.ch1_y, m1),
        ];
        let selected = match kind {
            PairKind::Increment => 0b1111,
            _ => f.bit_mask,
        };
        let set = &mut self.sets[thread];
        each_selected_unit(f.cnt_set_mask, |unit| {
            let channels = &mut set[unit.index()].channels;
            for (k, (channel, dim, operand, mask)) in operands.into_iter().enumerate() {
                if selected >> k & 1 == 0 {
                    continue;
                }
                let op = match kind {
                    PairKind::Increment => CounterOp::Increment(operand),
                    PairKind::Set => CounterOp::Set(operand),
                    PairKind::CarriageReturn => CounterOp::CarriageReturn(operand),
                };
                step(&mut channels[channel].counters[dim], op, mask);
            }
        });
        Ok(())
    }

    #[inline]
    fn counter_mut(
        &mut self,
        index: usize,
        unit: Unit,
        channel: usize,
        dim: Dim,
    ) -> Result<&mut Counter> {
        let Some(set) = self.sets.get_mut(index) else {
            return Err(no_such_set(index));
        };
        let Some(ch) = set[unit.index()].channels.get_mut(channel) else {
            return Err(no_such_channel(channel));
        };
        Ok(&mut ch.counters[dim.index()])
    }
}

#[cold]
fn no_such_set(index: usize) -> Fault {
    Fault::new(
        FaultKind::Unsupported,
        format!("ADC set index {index} is out of range; ADCs.md defines ADCs[3]"),
    )
}

#[cold]
fn no_such_channel(channel: usize) -> Fault {
    Fault::new(
        FaultKind::Unsupported,
        format!("ADC channel {channel} is out of range; each ADC has Channel[2]"),
    )
}

#[inline]
fn step(counter: &mut Counter, op: CounterOp, mask: u32) {
    // Wrapping in u32 and then masking is wrapping modulo 2^width, as every
    // width divides 32.
    match op {
        CounterOp::Set(v) => {
            counter.value = v & mask;
            counter.cr = v & mask;
        }
        CounterOp::Increment(n) => counter.value = counter.value.wrapping_add(n) & mask,
        CounterOp::CarriageReturn(n) => {
            counter.cr = counter.cr.wrapping_add(n) & mask;
            counter.value = counter.cr;
        }
        CounterOp::Clear => {
            counter.value = 0;
            counter.cr = 0;
        }
    }
}

/// `f` on each unit `cnt_set_mask` selects, in `Unit::ALL`'s order. (A
/// plain loop: as a `filter` iterator it cost the pack tile's three ADC
/// instructions about 70 instructions more.)
#[inline(always)]
fn each_selected_unit(cnt_set_mask: u32, mut f: impl FnMut(Unit)) {
    for unit in Unit::ALL {
        if cnt_set_mask & unit.cnt_set_mask_bit() != 0 {
            f(unit);
        }
    }
}

#[inline]
fn check_thread(name: &str, thread: usize) -> Result<()> {
    if thread < ADC_SETS {
        Ok(())
    } else {
        Err(no_such_thread(name, thread))
    }
}

#[cold]
fn no_such_thread(name: &str, thread: usize) -> Fault {
    Fault::new(
        FaultKind::Unsupported,
        format!("{name} issued by Tensix thread {thread}; there are three threads (0..=2)"),
    )
}

/// Every instruction with a `ThreadOverride` field treats a non-zero value as
/// `UnsupportedFunctionality` ("No known usage, confidence in specification
/// below is weak"); ttsim rejects it the same way.
#[inline]
fn check_thread_override(name: &str, thread_override: u32) -> Result<()> {
    if thread_override == 0 {
        Ok(())
    } else {
        Err(thread_override_set(name, thread_override))
    }
}

#[cold]
fn thread_override_set(name: &str, thread_override: u32) -> Fault {
    Fault::unsupported(format!(
        "{name} with ThreadOverride = {thread_override} is UnsupportedFunctionality \
         ({name}.md, functional model): no known usage, and the documented behaviour \
         is of weak confidence"
    ))
}

#[inline]
fn check_width(name: &str, field: &str, value: u32, width: u32) -> Result<()> {
    if value >> width == 0 {
        Ok(())
    } else {
        Err(field_too_wide(name, field, value, width))
    }
}

#[cold]
fn field_too_wide(name: &str, field: &str, value: u32, width: u32) -> Fault {
    Fault::invalid_instruction(format!(
        "{name} field {field} = {value:#x} does not fit its {width}-bit encoding"
    ))
}
