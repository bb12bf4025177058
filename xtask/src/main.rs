//! xtask: project automation (`cargo xtask test`, `bench`, `corpus`).
fn main() {}
