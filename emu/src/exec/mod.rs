//! The Tensix front end.
