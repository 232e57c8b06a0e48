//! The `SrcA` and `SrcB` register files.
//!
//! tt-isa-documentation `SrcASrcB.md`: each has two banks of 64 rows by 16
//! columns of 19-bit data, and each bank has an `AllowedClient` saying whether
//! the unpackers may write it or the matrix unit may read it. Cells here are
//! kept in the project's canonical 19-bit layout: sign `[18]`, exponent field
//! `[17:10]`, mantissa field `[9:0]`.

/// Rows per bank.
pub const ROWS: usize = 64;
/// Columns per row.
pub const COLS: usize = 16;
/// Bits per cell.
pub const CELL_BITS: u32 = 19;
/// Mask of a cell.
pub const CELL_MASK: u32 = (1 << CELL_BITS) - 1;

/// Who may use a bank next (`SrcASrcB.md`, "AllowedClient").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SrcClient {
    /// The unpackers may write the bank; the matrix unit waits.
    #[default]
    Unpackers,
    /// The matrix unit may read the bank; the unpackers wait.
    MatrixUnit,
}

/// One bank. Its rows live on the heap, so a [`crate::Machine`] stays a
/// few kilobytes and is cheap to move between jobs.
///
/// The bank remembers whether any row may have been written since it was
/// last all zero, so that a reset or a copy between two clean banks (a pack
/// job never writes `Src`) skips the bank's 4 KiB. Writers reach the rows
/// through [`SrcBank::rows_mut`], which marks the bank.
#[derive(Debug)]
pub struct SrcBank {
    rows: Box<super::CacheLines<[[u32; COLS]; ROWS]>>,
    /// False only while every row is zero.
    written: bool,
    pub allowed_client: SrcClient,
}

impl SrcBank {
    /// The bank's rows.
    #[inline]
    pub fn rows(&self) -> &[[u32; COLS]; ROWS] {
        &self.rows
    }

    /// The bank's rows, to write; the bank counts as written from now on.
    #[inline]
    pub fn rows_mut(&mut self) -> &mut [[u32; COLS]; ROWS] {
        self.written = true;
        &mut self.rows
    }

    /// Every row zero again; the client is the caller's business.
    fn clear(&mut self) {
        if self.written {
            self.rows.fill([0; COLS]);
            self.written = false;
        }
    }
}

impl Default for SrcBank {
    fn default() -> SrcBank {
        SrcBank {
            rows: Box::new(super::CacheLines([[0; COLS]; ROWS])),
            written: false,
            allowed_client: SrcClient::Unpackers,
        }
    }
}

/// Two banks are equal when their rows and clients are: whether a bank was
/// written is bookkeeping, not state.
impl PartialEq for SrcBank {
    fn eq(&self, other: &SrcBank) -> bool {
        self.allowed_client == other.allowed_client && self.rows == other.rows
    }
}

impl Eq for SrcBank {}

impl Clone for SrcBank {
    fn clone(&self) -> SrcBank {
        SrcBank {
            rows: self.rows.clone(),
            written: self.written,
            allowed_client: self.allowed_client,
        }
    }

    /// Copies into this bank's rows rather than allocating new ones, and
    /// not at all when both banks are zero.
    fn clone_from(&mut self, other: &SrcBank) {
        if self.written || other.written {
            *self.rows = *other.rows;
        }
        self.written = other.written;
        self.allowed_client = other.allowed_client;
    }
}

/// `SrcA` or `SrcB`: two banks, plus which bank the unpacker side and the
/// matrix side are each on (`Unpackers[i].SrcBank`, `MatrixUnit.SrcABank`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SrcReg {
    pub banks: [SrcBank; 2],
    pub unpacker_bank: usize,
    pub matrix_bank: usize,
}

impl Clone for SrcReg {
    fn clone(&self) -> SrcReg {
        SrcReg {
            banks: self.banks.clone(),
            unpacker_bank: self.unpacker_bank,
            matrix_bank: self.matrix_bank,
        }
    }

    /// Copies into this register's banks rather than allocating new ones.
    fn clone_from(&mut self, other: &SrcReg) {
        for (b, o) in self.banks.iter_mut().zip(&other.banks) {
            b.clone_from(o);
        }
        self.unpacker_bank = other.unpacker_bank;
        self.matrix_bank = other.matrix_bank;
    }
}

impl SrcReg {
    /// Back to the reset state (all zero, both banks the unpackers'),
    /// keeping the memory.
    pub fn reset(&mut self) {
        for b in &mut self.banks {
            b.clear();
            b.allowed_client = SrcClient::Unpackers;
        }
        self.unpacker_bank = 0;
        self.matrix_bank = 0;
    }

    /// Write one cell, masked to 19 bits; bank, row and column wrap.
    pub fn write(&mut self, bank: usize, row: usize, col: usize, cell: u32) {
        self.banks[bank % 2].rows_mut()[row % ROWS][col % COLS] = cell & CELL_MASK;
    }

    pub fn read(&self, bank: usize, row: usize, col: usize) -> u32 {
        self.banks[bank % 2].rows[row % ROWS][col % COLS]
    }

    /// Write a whole row, as [`SrcReg::write`] writes each of its cells.
    pub fn write_row(&mut self, bank: usize, row: usize, cells: &[u32; COLS]) {
        let to = &mut self.banks[bank % 2].rows_mut()[row % ROWS];
        for (to, cell) in to.iter_mut().zip(cells) {
            *to = cell & CELL_MASK;
        }
    }

    /// A whole row, as [`SrcReg::read`] reads each of its cells.
    pub fn read_row(&self, bank: usize, row: usize) -> [u32; COLS] {
        self.banks[bank % 2].rows[row % ROWS]
    }

    /// Who may use the bank the unpackers are on (`AllowedClient`); the bank
    /// index wraps like every other bank access.
    pub fn unpacker_side_client(&self) -> SrcClient {
        self.banks[self.unpacker_bank % 2].allowed_client
    }

    /// Who may use the bank the matrix unit is on.
    pub fn matrix_side_client(&self) -> SrcClient {
        self.banks[self.matrix_bank % 2].allowed_client
    }
}
