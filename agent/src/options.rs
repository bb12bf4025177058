//! Agent option string parsing: pure, no side effects.
