//! The Tensix front end.

pub mod mop;
pub mod replay;
