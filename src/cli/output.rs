//! Standard output that may be closed early (`retro info t.rtb | head -1`), and the error
//! report on standard error.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an error, and `println!` turns it
//! into a panic (exit 101). Every command writes through [`outln!`] instead, which returns
//! the error; [`report`] recognises a broken pipe anywhere in the error's chain and exits
//! quietly with 0, as ripgrep does: the reader has what it wanted.

use std::process::ExitCode;

/// `println!` to standard output, returning the write error instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        ::std::io::Write::write_fmt(&mut ::std::io::stdout(), format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` to standard output, returning the write error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        ::std::io::Write::write_fmt(&mut ::std::io::stdout(), format_args!($($arg)*))
    };
}

/// Whether `e` is, or was caused by, a write to a closed pipe.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// The message of `e` and its causes, each cause once: a cause already spelled out in the
/// message before it (many errors include their source's text) is not repeated. The
/// command that fixes it, where there is one, follows.
pub fn message(e: &anyhow::Error) -> String {
    let mut text = causes(e);
    // `fix` walks the causes itself.
    if let Some(fix) = retro::fixes::fix(&**e) {
        text.push_str(&fix);
    }
    text
}

fn causes(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if !text.contains(&c) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&c);
        }
    }
    text
}

/// The exit code of a command's result: 0 success, 1 a check that failed, 2 an error
/// (printed), and 0 without a word for a closed output pipe.
pub fn report(result: anyhow::Result<bool>) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::from_raw_os_error(19);
        let e = anyhow::Error::new(io)
            .context(format!("/dev/x: {}", std::io::Error::from_raw_os_error(19)));
        let m = message(&e);
        assert_eq!(m.matches("os error 19").count(), 1, "{m}");
        let e = anyhow::anyhow!("inner").context("outer");
        assert_eq!(message(&e), "outer: inner");
    }

    #[test]
    fn broken_pipe_is_found_under_context() {
        let e = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing answers");
        assert!(is_broken_pipe(&e));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
