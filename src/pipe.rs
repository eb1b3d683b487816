//! A reader that went away (`info X | head -1`): which errors mean a closed pipe, so the
//! printing subcommands can end quietly on every platform.
//!
//! On Unix the process restores SIGPIPE's default action and simply ends at the first
//! write to a closed pipe. Windows has no such signal: the write fails with
//! `ERROR_NO_DATA` (232, "The pipe is being closed", which std calls
//! [`io::ErrorKind::BrokenPipe`]) or `ERROR_PIPE_NOT_CONNECTED` (233, "Pipe not
//! connected", which it does not), and the error has to be recognised here.

use std::io;

/// Windows' `ERROR_NO_DATA`: a write to a pipe whose reader has closed it.
pub const ERROR_NO_DATA: i32 = 232;
/// Windows' `ERROR_PIPE_NOT_CONNECTED`: the same, once the reader is gone entirely.
pub const ERROR_PIPE_NOT_CONNECTED: i32 = 233;

/// Whether `e` says the reader of our output closed the pipe (Unix `EPIPE`, Windows
/// `ERROR_NO_DATA` or `ERROR_PIPE_NOT_CONNECTED`). The same logic on every platform: no
/// Unix errno is 232 or 233, so the Windows codes cannot be misread there.
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe || matches!(e.raw_os_error(), Some(ERROR_NO_DATA | ERROR_PIPE_NOT_CONNECTED))
}

/// Whether the message of a panic of `print!` / `println!` ("failed printing to stdout:
/// … (os error N)") is a closed pipe: the OS error number is read back and given to
/// [`is_closed_pipe`].
pub fn is_closed_pipe_panic(msg: &str) -> bool {
    let Some(rest) = msg.strip_prefix("failed printing to stdout: ") else {
        return false;
    };
    let Some(code) = rest
        .rsplit_once("(os error ")
        .and_then(|(_, tail)| tail.strip_suffix(')'))
        .and_then(|n| n.parse::<i32>().ok())
    else {
        return false;
    };
    is_closed_pipe(&io::Error::from_raw_os_error(code))
}

/// `eprintln!` that never panics: a message that cannot be written is dropped, and the
/// run ends with its own status.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr().lock(), $($arg)*);
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_unix_closed_pipes_are_closed_pipes() {
        for code in [ERROR_NO_DATA, ERROR_PIPE_NOT_CONNECTED] {
            assert!(is_closed_pipe(&io::Error::from_raw_os_error(code)), "{code}");
        }
        assert!(is_closed_pipe(&io::Error::from(io::ErrorKind::BrokenPipe)));
        #[cfg(unix)]
        assert!(is_closed_pipe(&io::Error::from_raw_os_error(libc::EPIPE)));
    }

    #[test]
    fn other_errors_are_not() {
        // Not found, I/O error / access denied, no space, and Windows' neighbours of the
        // two pipe codes (231 ERROR_PIPE_BUSY, 234 ERROR_MORE_DATA).
        for code in [2, 5, 28, 231, 234] {
            let e = io::Error::from_raw_os_error(code);
            assert_eq!(is_closed_pipe(&e), e.kind() == io::ErrorKind::BrokenPipe, "{code}");
        }
        assert!(!is_closed_pipe(&io::Error::other("pipe not connected")));
        assert!(!is_closed_pipe(&io::Error::from(io::ErrorKind::NotFound)));
    }

    #[test]
    fn print_panics_of_a_closed_pipe_are_recognised() {
        assert!(is_closed_pipe_panic(
            "failed printing to stdout: Pipe not connected (os error 233)"
        ));
        assert!(is_closed_pipe_panic(
            "failed printing to stdout: The pipe is being closed. (os error 232)"
        ));
        assert!(!is_closed_pipe_panic(
            "failed printing to stdout: Access is denied. (os error 5)"
        ));
        assert!(!is_closed_pipe_panic("index out of bounds (os error 233)"));
        assert!(!is_closed_pipe_panic("failed printing to stdout: formatter error"));
    }
}
