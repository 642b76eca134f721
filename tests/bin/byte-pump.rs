//! The least a process in the middle of a stdio MCP connection can do: it
//! starts the server and copies bytes, 64 KiB reads at a time, one thread
//! each way, parsing nothing. The benchmark harness measures
//! `mcp-sieve serve` over stdio beside it (issue 33: the proxy's stdio hop
//! against the physical limit of a hop).
//!
//! `byte-pump PROGRAM [ARG...]`

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::process::{Command, ExitCode, Stdio};

/// Copies `from` to `to` in reads of up to 64 KiB until `from` ends or
/// `to` is gone.
fn copy(mut from: impl Read, mut to: impl Write) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buffer[..n]).is_err() {
            return;
        }
    }
}

/// This process's stdin or stdout as a plain file: no buffering of std's
/// own between the pipe and the copy.
fn raw(fd: std::os::fd::BorrowedFd<'_>) -> std::fs::File {
    std::fs::File::from(fd.try_clone_to_owned().expect("a standard stream"))
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: byte-pump PROGRAM [ARG...]");
        return ExitCode::FAILURE;
    };
    let mut child = match Command::new(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("byte-pump: {} cannot start: {e}", program.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    let to_child = child.stdin.take().expect("a piped stdin");
    let from_child = child.stdout.take().expect("a piped stdout");
    let stdin = raw(std::io::stdin().as_fd());
    let stdout = raw(std::io::stdout().as_fd());
    // Host to server: when the host closes, the server's stdin closes.
    std::thread::spawn(move || copy(stdin, to_child));
    let back = std::thread::spawn(move || copy(from_child, stdout));
    let _ = back.join();
    match child.wait() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
