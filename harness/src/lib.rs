//! `tensix-harness`: conformance vectors, the runner, oracles and generators
//! for `tensix-emu`.

pub mod device;
pub mod diff;
pub mod engine;
pub mod explain;
pub mod fmt;
pub mod gate;
pub mod generators;
pub mod golden;
pub mod llk;
pub mod new;
pub mod oracles;
pub mod output;
pub mod report;
pub mod repro;
pub mod run;
pub mod trace;
pub mod vector;
