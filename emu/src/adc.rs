//! Address counters (ADCs).
