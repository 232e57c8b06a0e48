//! The Sync Unit's semaphores (tt-isa-documentation `SyncUnit.md`,
//! `SEMINIT.md`, `SEMPOST.md`, `SEMGET.md`).

/// One semaphore: a 4-bit value and a 4-bit maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Semaphore {
    pub value: u8,
    pub max: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Semaphores([Semaphore; 8]);

impl Semaphores {
    pub fn get(&self, index: usize) -> Semaphore {
        self.0[index % 8]
    }

    fn each(&mut self, mask: u32, f: impl Fn(&mut Semaphore)) {
        for (i, s) in self.0.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                f(s);
            }
        }
    }

    /// `SEMINIT`: set value and maximum of every selected semaphore.
    pub fn init(&mut self, mask: u32, value: u32, max: u32) {
        self.each(mask, |s| {
            s.value = (value & 0xf) as u8;
            s.max = (max & 0xf) as u8;
        });
    }

    /// `SEMPOST`: increment, saturating at 15.
    pub fn post(&mut self, mask: u32) {
        self.each(mask, |s| s.value = (s.value + 1).min(15));
    }

    /// `SEMGET`: decrement, saturating at 0.
    pub fn get_dec(&mut self, mask: u32) {
        self.each(mask, |s| s.value = s.value.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_and_get_saturate() {
        let mut s = Semaphores::default();
        s.init(0b101, 14, 2);
        s.post(0b111);
        s.post(0b111);
        assert_eq!(s.get(0), Semaphore { value: 15, max: 2 });
        assert_eq!(s.get(1), Semaphore { value: 2, max: 0 });
        s.get_dec(0b10);
        s.get_dec(0b10);
        s.get_dec(0b10);
        assert_eq!(s.get(1).value, 0);
    }
}
