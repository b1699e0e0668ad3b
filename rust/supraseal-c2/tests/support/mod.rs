//! What the tests share: field arithmetic, circom's files, synthesis as
//! bellperson does it, proof encodings, and the cuzk command as reference.
#![allow(dead_code)]

pub mod circom;
pub mod cli;
pub mod encode;
pub mod field;
pub mod synth;
