//! The cuzk command as the tests' reference: development keys in
//! bellperson's layout (`setup --format params`), the C prover's
//! deterministic proofs (`params prove --deterministic --blst`), and the
//! verifier (`params verify`). The command is $CUZK_BIN, else the
//! checkout's build/cuzk; files go to a folder of this process under
//! cargo's test scratch folder.

use std::env;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::circom::{read_r1cs, Fe, R1cs};
use super::encode::{proof_compressed, public_json, Proof};

pub fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn fixture(name: &str) -> PathBuf {
    checkout().join("tests/fixtures/bls12381").join(name)
}

/// A fresh folder for one test (named), in this process's scratch folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cuzk-{}", std::process::id())).join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// cuzk's stdout, or Err with its stderr
pub fn cuzk<S: AsRef<OsStr>>(args: &[S]) -> Result<String, String> {
    let bin = env::var_os("CUZK_BIN").map(PathBuf::from).unwrap_or_else(|| checkout().join("build/cuzk"));
    let out = Command::new(&bin).args(args).output().map_err(|e| format!("{}: {}", bin.display(), e))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("cuzk {}: {}", out.status, String::from_utf8_lossy(&out.stderr)))
    }
}

/// A circuit and its development key (KEY.params, KEY.vk) in dir.
pub struct Keyed {
    pub r1cs_path: PathBuf,
    pub r1cs: R1cs,
    pub params: PathBuf,
    pub vk: PathBuf,
}

pub fn keyed(dir: &Path, name: &str, r1cs_path: &Path) -> Keyed {
    let params = dir.join(format!("{}.params", name));
    cuzk(&[
        OsStr::new("setup"),
        OsStr::new("--format"),
        OsStr::new("params"),
        r1cs_path.as_os_str(),
        params.as_os_str(),
    ])
    .expect("cuzk setup --format params");
    Keyed {
        r1cs_path: r1cs_path.to_path_buf(),
        r1cs: read_r1cs(r1cs_path).expect("the r1cs"),
        vk: params.with_extension("vk"),
        params,
    }
}

/// The C prover's deterministic proof (r = s = 0) of witness file wtns,
/// in blst's layout (384 bytes).
pub fn c_deterministic_proof(dir: &Path, k: &Keyed, wtns: &Path) -> Vec<u8> {
    let (blst, proof, public) = (dir.join("c.blst"), dir.join("c.proof"), dir.join("c.json"));
    let args = [
        OsStr::new("params"),
        OsStr::new("prove"),
        OsStr::new("--deterministic"),
        OsStr::new("--blst"),
        blst.as_os_str(),
        k.r1cs_path.as_os_str(),
        k.params.as_os_str(),
        wtns.as_os_str(),
        proof.as_os_str(),
        public.as_os_str(),
    ];
    cuzk(&args).expect("cuzk params prove");
    fs::read(&blst).expect("the C prover's proof")
}

/// `cuzk params verify` of proof (bellperson's compressed bytes) for the
/// public inputs (normal form, ONE left out) against k's .vk.
pub fn verify(dir: &Path, k: &Keyed, public: &[Fe], proof: &Proof) -> Result<(), String> {
    let (pf, pj) = (dir.join("v.proof"), dir.join("v.json"));
    fs::write(&pf, proof_compressed(proof)).map_err(|e| e.to_string())?;
    fs::write(&pj, public_json(public)).map_err(|e| e.to_string())?;
    let out = cuzk(&[OsStr::new("params"), OsStr::new("verify"), k.vk.as_os_str(), pj.as_os_str(), pf.as_os_str()])?;
    if out.contains("OK!") {
        Ok(())
    } else {
        Err(out)
    }
}
