//! The Configuration Unit's instructions: WRCFG, RDCFG, RMWCIB0-3, SETC16
//! (tt-isa-documentation `WRCFG.md`, `RDCFG.md`, `RMWCIB.md`, `SETC16.md`;
//! the Blackhole pages say the behaviour is identical).

use crate::fault::{Fault, Result};
use crate::isa::{Rdcfg, Setc16, Wrcfg};
use crate::regs::{config_words, thread_config_words, Config, ThreadCfgField, ThreadConfig};
use crate::state::Gprs;

/// The Config state a thread's instructions use: its `CFG_STATE_ID_StateID`.
pub fn state_of(thread_config: &ThreadConfig, thread: usize) -> usize {
    thread_config.get(thread, ThreadCfgField::CFG_STATE_ID_StateID) as usize
}

/// `WRCFG`: copy one GPR, or four aligned GPRs into four aligned words.
pub fn wrcfg(
    cfg: &mut Config,
    tcfg: &ThreadConfig,
    gprs: &Gprs,
    thread: usize,
    i: &Wrcfg,
) -> Result<()> {
    let index = i.cfg_reg as usize;
    if index >= config_words(cfg.arch()) {
        return Err(Fault::undefined(format!(
            "WRCFG CfgIndex {index} is outside Config (CFG_STATE_SIZE*4 = {} words) (WRCFG.md)",
            config_words(cfg.arch())
        )));
    }
    let state = state_of(tcfg, thread);
    let gpr = i.gpr_address as usize;
    if i.wr128b != 0 {
        for k in 0..4 {
            let v = gprs.get(thread, (gpr & !3) + k).unwrap_or(0);
            cfg.write_addr32(state, (index & !3) + k, v);
        }
    } else {
        cfg.write_addr32(state, index, gprs.get(thread, gpr).unwrap_or(0));
    }
    Ok(())
}

/// `RDCFG`: copy one Config word into a GPR.
pub fn rdcfg(
    cfg: &Config,
    tcfg: &ThreadConfig,
    gprs: &mut Gprs,
    thread: usize,
    i: &Rdcfg,
) -> Result<()> {
    let index = i.cfg_reg as usize;
    let state = state_of(tcfg, thread);
    let value = cfg.read_addr32(state, index).ok_or_else(|| {
        Fault::undefined(format!(
            "RDCFG CfgIndex {index} is outside Config (RDCFG.md)"
        ))
    })?;
    gprs.set(thread, i.gpr_address as usize, value);
    Ok(())
}

/// `RMWCIBn`: read-modify-write byte `byte` of Config word `index` of
/// `state` under `mask`.
pub fn rmwcib(
    cfg: &mut Config,
    state: usize,
    byte: u32,
    index: u32,
    data: u32,
    mask: u32,
) -> Result<()> {
    let index = index as usize;
    let Some(old) = cfg.read_addr32(state, index) else {
        return Err(Fault::undefined(format!(
            "RMWCIB{byte} Index4 {index} is outside Config (RMWCIB.md)"
        )));
    };
    let shift = 8 * byte;
    let mask = (mask & 0xff) << shift;
    let new = (old & !mask) | ((data & 0xff) << shift & mask);
    cfg.write_addr32(state, index, new);
    Ok(())
}

/// `SETC16`: replace one ThreadConfig word of the issuing thread with 16 bits.
pub fn setc16(tcfg: &mut ThreadConfig, thread: usize, i: &Setc16) -> Result<()> {
    let reg = i.setc16_reg as usize;
    if !tcfg.write(thread, reg, i.setc16_value & 0xffff) {
        return Err(Fault::undefined(format!(
            "SETC16 CfgIndex {reg} is not below THD_STATE_SIZE ({}) (SETC16.md)",
            thread_config_words(tcfg.arch())
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arch;

    #[test]
    fn wrcfg_uses_the_threads_state_and_128_bit_alignment() {
        let arch = Arch::Blackhole;
        let mut cfg = Config::new(arch);
        let mut tcfg = ThreadConfig::new(arch);
        let mut gprs = Gprs::default();
        for k in 0..8 {
            gprs.set(1, k, 0x100 + k as u32);
        }
        tcfg.set(1, ThreadCfgField::CFG_STATE_ID_StateID, 1);
        let i = Wrcfg {
            cfg_reg: 70,
            wr128b: 1,
            gpr_address: 6,
        };
        wrcfg(&mut cfg, &tcfg, &gprs, 1, &i).unwrap();
        // Index 70 & !3 = 68, GPR 6 & !3 = 4: words 68..72 get GPRs 4..8.
        for k in 0..4 {
            assert_eq!(cfg.read_addr32(1, 68 + k), Some(0x104 + k as u32));
            assert_eq!(cfg.read_addr32(0, 68 + k), Some(0));
        }
        let far = Wrcfg { cfg_reg: 2000, ..i };
        let f = wrcfg(&mut cfg, &tcfg, &gprs, 1, &far).unwrap_err();
        assert_eq!(f.kind, crate::FaultKind::UndefinedBehavior);
    }

    #[test]
    fn rmwcib_touches_only_masked_bits_of_its_byte() {
        let arch = Arch::WormholeB0;
        let mut cfg = Config::new(arch);
        cfg.write_addr32(0, 10, 0xaabb_ccdd);
        rmwcib(&mut cfg, 0, 2, 10, 0x12, 0x0f).unwrap();
        assert_eq!(cfg.read_addr32(0, 10), Some(0xaab2_ccdd));
    }

    #[test]
    fn setc16_replaces_the_whole_word_with_16_bits() {
        let arch = Arch::Blackhole;
        let mut tcfg = ThreadConfig::new(arch);
        tcfg.write(2, 37, 0xffff_ffff);
        let i = Setc16 {
            setc16_value: 0x0104,
            setc16_reg: 37,
        };
        setc16(&mut tcfg, 2, &i).unwrap();
        assert_eq!(tcfg.read(2, 37), Some(0x0104));
        let bad = Setc16 {
            setc16_reg: 255,
            ..i
        };
        assert!(setc16(&mut tcfg, 2, &bad).is_err());
    }
}
