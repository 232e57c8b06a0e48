//! What a run did, recorded as it happens, for `trace` and `explain`.
//!
//! A machine records only when [`Machine::observer`](crate::Machine) holds
//! an [`Observer`]; with none, the only cost is one branch per instruction
//! and per datum on the general (per-datum) paths. While it records, the
//! packer and unpacker fast paths stand aside and every datum goes through
//! the general path, which the fast-path differential tests hold equal to
//! them. L1 writes are recorded by the L1 write log
//! ([`crate::state::L1::enable_log`]), tagged with the index of the
//! instruction that made them, which [`Issued::index`] matches.

use crate::format::pack::Intermediate;
use crate::pack::late::Converted;

/// One instruction as it executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issued {
    /// Issue order across the run (the tag of the L1 writes it made).
    pub index: u64,
    pub thread: u8,
    /// The program entry it came from (a MOP's or REPLAY's words share it).
    pub entry: usize,
    pub word: u32,
    /// The issuing thread's ADC set after it: for the two unpackers and the
    /// packers, channel 0 and channel 1, each `[X, Y, Z, W]`.
    pub adcs: [[[u32; 4]; 2]; 3],
}

/// Where a packed datum came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackSource {
    /// A `Dst` cell: the row as the packer addresses it (`Dst16b` rows, or
    /// `Dst32b` rows when it reads 32 bits), its column, the bits read, and
    /// whether the edge mask let it through.
    Dst {
        row: u32,
        col: u32,
        cell: u32,
        passed_edge_mask: bool,
    },
    /// `ZeroWrite`: a zero from `/dev/null`.
    DevNull,
    /// Packer 0 reading L1.
    L1 { addr: u32 },
}

/// One datum through the packer's stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackDatum {
    /// The instruction (issue order).
    pub instruction: u64,
    pub packer: u8,
    pub source: PackSource,
    /// After the early conversion (for a masked datum: the fill value).
    pub early: Intermediate,
    /// After ReLU.
    pub relu: Intermediate,
    /// The exponent histogram bin it counted in, when the histogram is on.
    pub histogram_bin: Option<u8>,
    /// After exponent thresholding.
    pub thresholded: Intermediate,
    /// Whether downsampling kept it; the stages below exist only if so.
    pub kept: bool,
    /// After the late conversion: an L1 datum, or a BFP element waiting for
    /// its group.
    pub late: Option<Converted>,
    /// Whether the packer compresses (zero compression) this stream.
    pub compressed: bool,
    /// Whether zero compression dropped it.
    pub elided: bool,
    /// For a plain output, the L1 byte address its first byte goes to
    /// (`None` under compression, where the address depends on the group).
    pub l1_addr: Option<u32>,
    /// Bytes the datum takes in L1 (plain outputs).
    pub l1_len: u8,
    /// For a BFP output, its group in [`Observer::bfp_groups`] and its place
    /// in it, once the group is complete.
    pub bfp: Option<(usize, u8)>,
    /// `Pack_L1_Acc`: the datum is added to what L1 holds.
    pub accumulated: bool,
}

/// One BFP group as the shared-exponent assembler finished it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BfpGroupRecord {
    pub instruction: u64,
    /// The 16 elements that went in (BF16 patterns, or E5M7 in FP16 layout
    /// for the "a" forms).
    pub elements: [u16; 16],
    pub shared_exp: u8,
    /// The datums written: sign and magnitude of the output width.
    pub datums: [u8; 16],
    /// Bits per datum (8, 4 or 2).
    pub width_bits: u8,
    /// Where its exponent byte and its first datum byte go in L1.
    pub exp_addr: u32,
    pub data_addr: u32,
}

/// Which register an unpacked datum was written to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnpackCell {
    SrcA {
        bank: u8,
        row: u32,
        col: u32,
    },
    SrcB {
        bank: u8,
        row: u32,
        col: u32,
    },
    /// `Dst16b` or `Dst32b` row (as the unpacker addresses it) and column.
    Dst {
        row: u32,
        col: u32,
        wide: bool,
    },
}

/// Where a BFP datum's shared exponent came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExponentSource {
    /// The input is not BFP.
    None,
    /// `FORCED_SHARED_EXP_shared_exp` (`Force_shared_exp` set).
    Forced,
    /// The exponent section, at this L1 byte address.
    L1(i64),
}

/// One `UNPACR` as its address generators and settings planned it
/// (`UNPACR_Regular.md`: the descriptor and counters give the input
/// streams, the output address generator where datums go).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnpackPlan {
    pub instruction: u64,
    pub unpacker: u8,
    pub in_format: crate::format::DataFormat,
    pub out_format: crate::format::DataFormat,
    /// Bit address of the first datum read.
    pub first_datum_bit: i64,
    /// Byte address of the first exponent read, when the exponents come
    /// from L1.
    pub exponent_byte: Option<i64>,
    /// Bit address of the first zero-run count, for compressed input.
    pub zero_runs_bit: Option<i64>,
    /// `InputNumDatums` (`u32::MAX` when the decompressed count bounds the
    /// loop instead).
    pub input_datums: u32,
    /// `DecompressDrop`.
    pub drop: u32,
    /// `OutAddr` of the first datum, in output datums.
    pub out_addr: u32,
    /// `UpsampleZeroes` and `UpsampleInterleave`.
    pub upsample_zeroes: u32,
    pub interleave: bool,
    /// `ColShift` (`SrcA`).
    pub col_shift: u32,
    /// Haloize (`Transpose`, `SrcA`).
    pub transpose: bool,
    /// Tilize (`DiscontiguousInputRows`).
    pub tileize: bool,
    /// `SrcRow[CurrentThread]` and the bank written.
    pub src_row: u32,
    pub bank: u8,
}

/// One datum through an unpacker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnpackDatum {
    pub instruction: u64,
    pub unpacker: u8,
    /// L1 bit address of the datum (byte address × 8 + bit), and its bits.
    pub l1_bit: i64,
    pub bits: u32,
    pub datum_bits: u32,
    /// The BFP shared exponent read with it, and where it came from.
    pub exp: u8,
    pub exp_from: ExponentSource,
    /// Zeroes decompression writes after it, and the bit address of that
    /// count (compressed input only).
    pub zeroes: u32,
    pub zeroes_bit: Option<i64>,
    /// The value written, as the register holds it.
    pub value: u32,
    /// The output address generator's position for it (`OutAddr`, in
    /// datums), before the header rows, column shift, haloize transpose and
    /// `SrcRow` place it in a register cell.
    pub out_addr: u32,
    /// Where it went (`None` when the output generator dropped it: a `SrcA`
    /// header row or shifted-out column).
    pub cell: Option<UnpackCell>,
}

/// The record of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observer {
    pub instructions: Vec<Issued>,
    pub pack: Vec<PackDatum>,
    pub bfp_groups: Vec<BfpGroupRecord>,
    pub unpack_plans: Vec<UnpackPlan>,
    pub unpack: Vec<UnpackDatum>,
}
