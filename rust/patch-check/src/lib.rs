//! supraseal-c2 called the way bellperson calls it (feature
//! cuda-supraseal): the parameters held as an SRS whose error becomes an
//! io::Error by its Display; a prover's assignment turned into
//! supraseal_c2::Assignment from its bit vectors' raw words; one batch
//! call, r and s zero when no randomization is given, the proofs written
//! in place in blstrs's layout. Written for this check, in bellperson's
//! shape, not its code.

use std::ffi::CStr;
use std::io;
use std::os::raw::{c_char, c_int};
use std::path::PathBuf;

/// A density bit vector (bitvec's usize words) and its count of set bits.
pub struct DensityTracker {
    pub words: Vec<usize>,
    pub bits: usize,
    pub total: usize,
}

/// What bellperson's synthesis leaves for the prover.
pub struct ProvingAssignment<Scalar> {
    pub a_aux_density: DensityTracker,
    pub b_input_density: DensityTracker,
    pub b_aux_density: DensityTracker,
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    pub input_assignment: Vec<Scalar>,
    pub aux_assignment: Vec<Scalar>,
}

impl<Scalar> From<&ProvingAssignment<Scalar>> for supraseal_c2::Assignment<Scalar> {
    fn from(p: &ProvingAssignment<Scalar>) -> Self {
        Self {
            a_aux_density: p.a_aux_density.words.as_ptr(),
            a_aux_bit_len: p.a_aux_density.bits,
            a_aux_popcount: p.a_aux_density.total,
            b_inp_density: p.b_input_density.words.as_ptr(),
            b_inp_bit_len: p.b_input_density.bits,
            b_inp_popcount: p.b_input_density.total,
            b_aux_density: p.b_aux_density.words.as_ptr(),
            b_aux_bit_len: p.b_aux_density.bits,
            b_aux_popcount: p.b_aux_density.total,
            a: p.a.as_ptr(),
            b: p.b.as_ptr(),
            c: p.c.as_ptr(),
            abc_size: p.a.len(),
            inp_assignment_data: p.input_assignment.as_ptr(),
            inp_assignment_size: p.input_assignment.len(),
            aux_assignment_data: p.aux_assignment.as_ptr(),
            aux_assignment_size: p.aux_assignment.len(),
        }
    }
}

/// blstrs's affine points (blst's layout): Fp as 6 words, Fp2 c0 then c1.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct G1Affine {
    pub x: [u64; 6],
    pub y: [u64; 6],
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct G2Affine {
    pub x: [[u64; 6]; 2],
    pub y: [[u64; 6]; 2],
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

pub struct SuprasealParameters {
    srs: supraseal_c2::SRS,
}

impl SuprasealParameters {
    pub fn new(param_file_path: PathBuf) -> io::Result<Self> {
        let srs = supraseal_c2::SRS::try_new(param_file_path, false)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err.to_string()))?;
        Ok(Self { srs })
    }

    pub fn get_supraseal_srs(&self) -> Option<&supraseal_c2::SRS> {
        Some(&self.srs)
    }
}

pub fn create_proof_batch<Scalar: Copy + Default>(
    provers: &[ProvingAssignment<Scalar>],
    params: &SuprasealParameters,
    randomization: Option<(Vec<Scalar>, Vec<Scalar>)>,
) -> io::Result<Vec<Proof>> {
    let n = provers.len();
    let (r_s, s_s) = randomization.unwrap_or((vec![Scalar::default(); n], vec![Scalar::default(); n]));
    let provers_c2: Vec<supraseal_c2::Assignment<Scalar>> = provers.iter().map(|p| p.into()).collect();
    let mut proofs = vec![Proof::default(); n];
    let srs = params.get_supraseal_srs().ok_or_else(|| io::Error::new(io::ErrorKind::Other, "no SRS"))?;
    supraseal_c2::generate_groth16_proofs(
        provers_c2.as_slice(),
        r_s.as_slice(),
        s_s.as_slice(),
        proofs.as_mut_slice(),
        srs,
    );
    Ok(proofs)
}

/// For the C link check (tests/cli/rust_crate.sh), as Go calls
/// libfilcrypto.a: 0 when the parameter file at path reads as an SRS,
/// else the error's code (-1 for a NULL or non-UTF-8 path).
#[no_mangle]
pub extern "C" fn patch_check_read_params(path: *const c_char) -> c_int {
    if path.is_null() {
        return -1;
    }
    // SAFETY: the caller passes a NUL-terminated string
    match unsafe { CStr::from_ptr(path) }.to_str() {
        Ok(p) => match supraseal_c2::SRS::try_new(PathBuf::from(p), false) {
            Ok(_) => 0,
            Err(e) => e.code,
        },
        Err(_) => -1,
    }
}
