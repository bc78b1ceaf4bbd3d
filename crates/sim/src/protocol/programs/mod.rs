//! Seed 004's programs at line level.
