//! `tensix-harness`: conformance vectors, the runner, oracles and generators
//! for `tensix-emu`.

pub mod vector;
