//! This process's stdin and stdout as async byte streams that the runtime
//! polls itself.
//!
//! Tokio's `stdin()`/`stdout()` read and write on its blocking thread pool:
//! every line a host sends is one hand-off to a pool thread and one back,
//! two thread wake-ups a message each way. A stdio MCP server almost
//! always has a pipe (Python's and Rust's clients) or a socket (Node's
//! `child_process`, so Claude Desktop and the Inspector) there, which can
//! be polled like any other descriptor instead. A terminal, a file or
//! `/dev/null` keeps tokio's standard streams.
//!
//! Every stdio server of the project (the demo's, the proxy's front) goes
//! through [`pipes`].

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// This process's standard input, polled by the runtime when it can be.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;
/// This process's standard output, polled by the runtime when it can be.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// Standard input and output for a transport. Must be called inside a
/// tokio runtime (the descriptors are registered with its reactor).
pub fn pipes() -> (Input, Output) {
    (input(), output())
}

fn input() -> Input {
    match polled(io::stdin().as_fd().try_clone_to_owned()) {
        Some(Polled::Pipe(file)) => match pipe::Receiver::from_file(file) {
            Ok(receiver) => return Box::new(receiver),
            Err(error) => tracing_fallback("stdin", &error),
        },
        Some(Polled::Socket(socket)) => match tokio::net::UnixStream::from_std(socket) {
            Ok(stream) => return Box::new(stream),
            Err(error) => tracing_fallback("stdin", &error),
        },
        None => {}
    }
    Box::new(tokio::io::stdin())
}

fn output() -> Output {
    match polled(io::stdout().as_fd().try_clone_to_owned()) {
        Some(Polled::Pipe(file)) => match pipe::Sender::from_file(file) {
            Ok(sender) => return Box::new(sender),
            Err(error) => tracing_fallback("stdout", &error),
        },
        Some(Polled::Socket(socket)) => match tokio::net::UnixStream::from_std(socket) {
            Ok(stream) => return Box::new(stream),
            Err(error) => tracing_fallback("stdout", &error),
        },
        None => {}
    }
    Box::new(tokio::io::stdout())
}

/// A standard stream the reactor can poll.
enum Polled {
    Pipe(std::fs::File),
    Socket(std::os::unix::net::UnixStream),
}

/// What a duplicate of a standard stream's descriptor is, when it is a
/// pipe or a Unix socket (the duplicate shares the open file, so making it
/// non-blocking is what the reactor needs).
fn polled(fd: io::Result<OwnedFd>) -> Option<Polled> {
    let file = std::fs::File::from(fd.ok()?);
    let kind = file.metadata().ok()?.file_type();
    if kind.is_fifo() {
        widen(file.as_fd());
        Some(Polled::Pipe(file))
    } else if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
        socket.set_nonblocking(true).ok()?;
        Some(Polled::Socket(socket))
    } else {
        None
    }
}

/// What a pipe is asked to hold: a 10,000-tool list (about 14 MB) goes
/// through a pipe of the default 64 KiB in more than 200 rounds, each
/// waking the reader and then the writer; through 1 MiB in 14.
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Asks the kernel to let the pipe `pipe` holds hold [`PIPE_BYTES`] (this
/// process's standard streams, a server's pipes). A system that allows
/// less (`/proc/sys/fs/pipe-max-size`) or refuses keeps the pipe as it
/// is: only speed is lost.
pub fn widen(pipe: std::os::fd::BorrowedFd<'_>) {
    use std::os::fd::AsRawFd;
    // SAFETY: F_SETPIPE_SZ on a descriptor borrowed for the call; it reads
    // and writes no memory of ours.
    let resized = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
    if resized < 0 {
        tracing::debug!("a pipe keeps its size: {}", io::Error::last_os_error());
    }
}

/// Says why a stream falls back to tokio's standard one (it still works,
/// only with a thread hop a message).
fn tracing_fallback(stream: &str, error: &io::Error) {
    tracing::debug!("{stream} is read through a thread: {error}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(fd: OwnedFd) -> &'static str {
        match polled(Ok(fd)) {
            Some(Polled::Pipe(_)) => "pipe",
            Some(Polled::Socket(_)) => "socket",
            None => "standard",
        }
    }

    #[test]
    fn a_polled_pipe_is_widened() {
        use std::os::fd::AsRawFd;
        let (reader, _writer) = io::pipe().expect("a pipe");
        let Some(Polled::Pipe(file)) = polled(Ok(OwnedFd::from(reader))) else {
            panic!("a pipe is polled");
        };
        // SAFETY: F_GETPIPE_SZ on a descriptor this test owns.
        let size = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETPIPE_SZ) };
        assert_eq!(size, PIPE_BYTES, "as large as asked");
    }

    #[test]
    fn pipes_and_sockets_are_polled_and_files_are_not() {
        let (reader, writer) = io::pipe().expect("a pipe");
        assert_eq!(kind(OwnedFd::from(reader)), "pipe");
        assert_eq!(kind(OwnedFd::from(writer)), "pipe");
        let (socket, _other) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
        assert_eq!(kind(OwnedFd::from(socket)), "socket");
        let file = a_source_file();
        assert_eq!(kind(OwnedFd::from(file)), "standard");
        let null = std::fs::File::open("/dev/null").expect("/dev/null");
        assert_eq!(kind(OwnedFd::from(null)), "standard");
    }

    /// An ordinary file (this crate's own source).
    fn a_source_file() -> std::fs::File {
        std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/src/stdio.rs"))
            .expect("a source file")
    }

    #[tokio::test]
    async fn a_polled_pipe_carries_bytes_both_ways() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (reader, writer) = io::pipe().expect("a pipe");
        let Some(Polled::Pipe(read_end)) = polled(Ok(OwnedFd::from(reader))) else {
            panic!("a pipe's read end is polled");
        };
        let Some(Polled::Pipe(write_end)) = polled(Ok(OwnedFd::from(writer))) else {
            panic!("a pipe's write end is polled");
        };
        let mut receiver = pipe::Receiver::from_file(read_end).expect("a receiver");
        let mut sender = pipe::Sender::from_file(write_end).expect("a sender");
        sender
            .write_all(b"{\"jsonrpc\":\"2.0\"}\n")
            .await
            .expect("written");
        drop(sender);
        let mut got = String::new();
        receiver.read_to_string(&mut got).await.expect("read");
        assert_eq!(got, "{\"jsonrpc\":\"2.0\"}\n");
    }
}
