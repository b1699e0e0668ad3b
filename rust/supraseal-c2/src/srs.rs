//! supraseal-c2's SRS: a reference-counted handle on a parameter file
//! (bellperson's .params) read and checked by libcuzk.

use std::os::raw::{c_char, c_void};
use std::path::PathBuf;

use crate::error::{Error, RawError};

/// A handle on one SRS: `Clone` takes another reference, `Drop` releases
/// one (the SRS goes with the last). The default is empty (no SRS): a
/// proof against it is an error.
#[repr(C)]
pub struct SRS {
    ptr: *const c_void,
}

extern "C" {
    fn create_SRS(ret: *mut SRS, path: *const c_char, cache: bool) -> RawError;
    fn evict_SRS(srs: *const SRS);
    fn drop_SRS(srs: *mut SRS);
    fn clone_SRS(srs: *const SRS) -> SRS;
}

impl Default for SRS {
    fn default() -> Self {
        SRS { ptr: std::ptr::null() }
    }
}

impl SRS {
    /// Reads and checks the parameter file at srs_path (every count and
    /// point). With cache, libcuzk keeps it for the next call with the same
    /// path (the four most recently used paths) until [`SRS::evict`].
    /// Errors: a path with a NUL byte, a missing, short or bad file.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, Error> {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(srs_path.as_os_str().as_bytes())
            .map_err(|_| Error::invalid(format!("SRS path {:?} holds a NUL byte", srs_path)))?;
        let mut ret = SRS::default();
        // SAFETY: ret is ours to fill; path is NUL-terminated
        unsafe { create_SRS(&mut ret, path.as_ptr(), cache) }.into_result()?;
        Ok(ret)
    }

    /// Drops this path's SRS from libcuzk's cache; handles keep theirs.
    pub fn evict(&self) {
        // SAFETY: self is a handle (or empty, which libcuzk ignores)
        unsafe { evict_SRS(self) }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ptr.is_null()
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        // SAFETY: releases this handle's reference and empties it
        unsafe { drop_SRS(self) };
        self.ptr = std::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        // SAFETY: another reference on the same SRS (empty stays empty)
        unsafe { clone_SRS(self) }
    }
}

// libcuzk's SRS is read-only once made and its counts are atomic.
unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}
