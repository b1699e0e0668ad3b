//! supraseal-c2's public API (crates.io supraseal-c2 0.1.x, what
//! bellperson's `cuda-supraseal` feature calls) over libcuzk, which
//! exports supraseal-c2's C ABI (`create_SRS`, `evict_SRS`, `drop_SRS`,
//! `clone_SRS`, `generate_groth16_proofs_c`; include/cuzk/supraseal.h).
//! Point a Filecoin build at it with
//!
//! ```toml
//! [patch.crates-io]
//! supraseal-c2 = { path = "/path/to/cuzk/rust/supraseal-c2" }
//! ```
//!
//! The same names, signatures and layouts as supraseal-c2; what differs:
//! every bad input is an [`Error`] (libcuzk never asserts), which
//! `try_generate_groth16_proofs` returns where supraseal-c2's entry points
//! panic (as ours do, with its message), and the crate has no
//! dependencies (the scalar and proof types stay generic, as bellperson
//! passes blstrs's: 32-byte scalars and 384-byte proofs, checked).

mod error;
mod prove;
mod srs;

pub use error::Error;
pub use prove::{generate_groth16_proof, generate_groth16_proofs, try_generate_groth16_proofs, Assignment};
pub use srs::SRS;
