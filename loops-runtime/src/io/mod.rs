//! Matrices from outside the program: Matrix Market files and generators.

pub mod generate;
pub mod mtx;
