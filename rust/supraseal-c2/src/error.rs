//! The error of every call: supraseal-c2's (sppark's `Error`): a public
//! `code`, an errno value (EINVAL a bad argument or an assignment that
//! disagrees with the SRS, EIO / EBADMSG a missing or bad file, ENOMEM),
//! and a message, shown by `Display` and `String::from`.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int, c_void};

/// The code of an argument refused on the Rust side (Linux's EINVAL, as
/// libcuzk's own refusals).
pub(crate) const EINVAL: i32 = 22;

pub struct Error {
    pub code: i32,
    message: String,
}

impl Error {
    pub(crate) fn invalid(message: String) -> Self {
        Error { code: EINVAL, message }
    }

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// libcuzk's `cuzk_rust_error` as returned: the message malloc'd by
/// libcuzk (NULL on success), freed here once copied.
#[repr(C)]
pub(crate) struct RawError {
    code: c_int,
    message: *mut c_char,
}

extern "C" {
    fn free(ptr: *mut c_void);
}

impl RawError {
    pub(crate) fn into_result(self) -> Result<(), Error> {
        let message = if self.message.is_null() {
            None
        } else {
            // SAFETY: libcuzk's message is a NUL-terminated malloc'd string
            // that nothing else frees
            let text = unsafe { CStr::from_ptr(self.message) }.to_string_lossy().into_owned();
            unsafe { free(self.message as *mut c_void) };
            Some(text)
        };
        if self.code == 0 {
            return Ok(());
        }
        Err(Error { code: self.code, message: message.unwrap_or_else(|| format!("libcuzk error #{}", self.code)) })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Error {{ code: {}, message: {:?} }}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

impl From<&Error> for String {
    fn from(e: &Error) -> Self {
        e.message.clone()
    }
}

impl From<Error> for String {
    fn from(e: Error) -> Self {
        e.message
    }
}
