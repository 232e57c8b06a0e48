//! Why a run stops early.
//!
//! The categories follow the ones tenstorrent/ttsim uses for its own Tensix
//! model: a run either completes or stops with exactly one [`Fault`], which
//! names the rule it enforces in a sentence a user can act on.

use std::fmt;

/// The category of a [`Fault`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// The ISA documentation leaves the behaviour undefined.
    UndefinedBehavior,
    /// The documentation says the result is an unpredictable value.
    UnpredictableValue,
    /// A feature this emulator deliberately does not model; the message says why.
    Unsupported,
    /// A feature not modelled yet.
    Unimplemented,
    /// The instruction word does not name an instruction of this architecture.
    InvalidInstruction,
    /// No thread can make progress and at least one still has work queued.
    Deadlock,
    /// A step budget or MOP/REPLAY expansion budget ran out.
    ResourceLimit,
}

impl FaultKind {
    /// Every kind, in declaration order.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::UndefinedBehavior,
        FaultKind::UnpredictableValue,
        FaultKind::Unsupported,
        FaultKind::Unimplemented,
        FaultKind::InvalidInstruction,
        FaultKind::Deadlock,
        FaultKind::ResourceLimit,
    ];

    /// The snake_case names used in conformance vectors
    /// (`expect.fault.kind`), in the order of [`FaultKind::ALL`].
    pub const NAMES: [&'static str; 7] = [
        "undefined_behavior",
        "unpredictable_value",
        "unsupported",
        "unimplemented",
        "invalid_instruction",
        "deadlock",
        "resource_limit",
    ];

    /// The name used in conformance vectors.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Inverse of [`FaultKind::name`].
    pub fn from_name(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_declaration_order() {
        assert_eq!(FaultKind::Deadlock.name(), "deadlock");
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::from_name(k.name()), Some(k));
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A typed reason for a run to stop: its [`FaultInfo`], boxed. Every
/// emulator operation returns a [`Result`], and a boxed fault keeps the
/// `Err` side one pointer wide, so that results travel in registers on the
/// paths that do not fault (a fault's message alone is a 24-byte `String`).
/// Its fields are read and set through `Deref` as the info's own.
#[derive(Clone, PartialEq, Eq)]
pub struct Fault(Box<FaultInfo>);

/// What a [`Fault`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultInfo {
    pub kind: FaultKind,
    /// The Tensix thread (0 = unpack, 1 = math, 2 = pack) whose instruction
    /// stopped the run, when one did.
    pub thread: Option<u8>,
    /// Index of the offending entry in that thread's program, when known.
    pub instruction_index: Option<usize>,
    /// The rule, as a sentence.
    pub rule: String,
}

/// The constructors are `#[cold]`: a fault ends a run, so the branch that
/// makes one is the unlikely one wherever it is taken, and its allocation
/// stays out of the hot paths' code.
impl Fault {
    #[cold]
    pub fn new(kind: FaultKind, rule: impl Into<String>) -> Fault {
        Fault(Box::new(FaultInfo {
            kind,
            thread: None,
            instruction_index: None,
            rule: rule.into(),
        }))
    }

    /// What the fault says, unboxed.
    pub fn into_info(self) -> FaultInfo {
        *self.0
    }

    #[cold]
    pub fn undefined(rule: impl Into<String>) -> Fault {
        Fault::new(FaultKind::UndefinedBehavior, rule)
    }

    #[cold]
    pub fn unpredictable(rule: impl Into<String>) -> Fault {
        Fault::new(FaultKind::UnpredictableValue, rule)
    }

    #[cold]
    pub fn unsupported(rule: impl Into<String>) -> Fault {
        Fault::new(FaultKind::Unsupported, rule)
    }

    #[cold]
    pub fn unimplemented(rule: impl Into<String>) -> Fault {
        Fault::new(FaultKind::Unimplemented, rule)
    }

    #[cold]
    pub fn invalid_instruction(rule: impl Into<String>) -> Fault {
        Fault::new(FaultKind::InvalidInstruction, rule)
    }

    /// Attach the thread and program position, keeping any already set
    /// (the innermost site knows best).
    pub fn at(mut self, thread: u8, instruction_index: usize) -> Fault {
        self.thread.get_or_insert(thread);
        self.instruction_index.get_or_insert(instruction_index);
        self
    }
}

impl std::ops::Deref for Fault {
    type Target = FaultInfo;

    fn deref(&self) -> &FaultInfo {
        &self.0
    }
}

impl std::ops::DerefMut for Fault {
    fn deref_mut(&mut self) -> &mut FaultInfo {
        &mut self.0
    }
}

impl fmt::Debug for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(t) = self.thread {
            write!(f, " on thread {t}")?;
        }
        if let Some(i) = self.instruction_index {
            write!(f, " at program entry {i}")?;
        }
        write!(f, ": {}", self.rule)
    }
}

impl std::error::Error for Fault {}

/// Result of any emulator operation that may stop a run.
pub type Result<T> = std::result::Result<T, Fault>;
