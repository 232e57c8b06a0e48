//! Datum formats and the conversions the packers and unpackers perform.
