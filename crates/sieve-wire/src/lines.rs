//! Newline-delimited framing (stdio): [`LineReader`] cuts any chunking of
//! a byte stream into lines, `\r\n` or `\n`, blank lines skipped, and a
//! line over the limit refused as soon as it is over, never buffered whole;
//! reading goes on at the next line.

/// What a [`LineReader`] gives for each line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line's bytes, without its line end.
    Text(Vec<u8>),
    /// A line went over the limit: its bytes are dropped, up to its end.
    TooLong { limit: usize },
}

/// Cuts a byte stream into lines, whatever its chunks.
#[derive(Debug, Clone)]
pub struct LineReader {
    max: usize,
    partial: Vec<u8>,
    /// Dropping the rest of a line that went over `max`.
    discarding: bool,
}

impl LineReader {
    /// Lines of at most `max` bytes (without the line end).
    pub fn new(max: usize) -> LineReader {
        LineReader {
            max,
            partial: Vec::new(),
            discarding: false,
        }
    }

    /// Takes the next chunk; each line it completes (or refuses) goes to
    /// `emit`, in order.
    pub fn feed(&mut self, chunk: &[u8], mut emit: impl FnMut(Line)) {
        let mut rest = chunk;
        // memchr looks at many bytes at a time, where a search byte by
        // byte took several instructions for each.
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let piece = &rest[..end];
            rest = &rest[end + 1..];
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            // A `\r` before the `\n` is the line end, not the line's.
            let length = self.partial.len() + piece.len();
            let counted = length - usize::from(ends_with_cr(&self.partial, piece));
            if counted > self.max {
                self.partial.clear();
                emit(Line::TooLong { limit: self.max });
                continue;
            }
            let mut line = std::mem::take(&mut self.partial);
            line.extend_from_slice(piece);
            self.line(line, &mut emit);
        }
        if self.discarding {
            return;
        }
        // One more byte is allowed for the `\r` of a `\r\n` yet to come.
        let pending = self.partial.len() + rest.len();
        if pending > self.max && (pending - 1 > self.max || !ends_with_cr(&self.partial, rest)) {
            // Refused now, not when (if ever) it ends.
            self.partial = Vec::new();
            self.discarding = true;
            emit(Line::TooLong { limit: self.max });
        } else {
            self.partial.extend_from_slice(rest);
        }
    }

    /// The stream ended: a last line without a line end goes to `emit`.
    pub fn finish(&mut self, mut emit: impl FnMut(Line)) {
        let line = std::mem::take(&mut self.partial);
        if !std::mem::take(&mut self.discarding) {
            self.line(line, &mut emit);
        }
    }

    fn line(&self, mut line: Vec<u8>, emit: &mut impl FnMut(Line)) {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        emit(Line::Text(line));
    }
}

fn ends_with_cr(partial: &[u8], piece: &[u8]) -> bool {
    piece.last().or(partial.last()) == Some(&b'\r')
}

/// [`LineReader`] over a tokio `AsyncRead`.
#[cfg(feature = "tokio")]
pub struct AsyncLines<R> {
    inner: R,
    reader: LineReader,
    ready: std::collections::VecDeque<Line>,
    buffer: Box<[u8]>,
    done: bool,
}

#[cfg(feature = "tokio")]
impl<R: tokio::io::AsyncRead + Unpin> AsyncLines<R> {
    /// Lines of at most `max` bytes from `inner`.
    pub fn new(inner: R, max: usize) -> AsyncLines<R> {
        AsyncLines {
            inner,
            reader: LineReader::new(max),
            ready: Default::default(),
            buffer: vec![0; 64 * 1024].into_boxed_slice(),
            done: false,
        }
    }

    /// The next line, or `None` at the end of the stream.
    pub async fn next(&mut self) -> std::io::Result<Option<Line>> {
        use tokio::io::AsyncReadExt;
        loop {
            if let Some(line) = self.ready.pop_front() {
                return Ok(Some(line));
            }
            if self.done {
                return Ok(None);
            }
            let read = self.inner.read(&mut self.buffer).await?;
            let ready = &mut self.ready;
            if read == 0 {
                self.done = true;
                self.reader.finish(|line| ready.push_back(line));
            } else {
                self.reader
                    .feed(&self.buffer[..read], |line| ready.push_back(line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize, chunk: usize) -> Vec<Line> {
        let mut reader = LineReader::new(max);
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            reader.feed(piece, |line| out.push(line));
        }
        reader.finish(|line| out.push(line));
        out
    }

    #[test]
    fn lines_crlf_blank_and_too_long() {
        let input = b"a\r\n\n  \r\nbb\nccccc\ndd\r\nlast";
        for chunk in 1..input.len() {
            assert_eq!(
                lines(input, 4, chunk),
                [
                    Line::Text(b"a".to_vec()),
                    Line::Text(b"bb".to_vec()),
                    Line::TooLong { limit: 4 },
                    Line::Text(b"dd".to_vec()),
                    Line::Text(b"last".to_vec()),
                ],
                "chunks of {chunk}"
            );
        }
        // Exactly the limit, with and without `\r`.
        assert_eq!(lines(b"abcd\r\nabcd\n", 4, 1).len(), 2);
        // No limit at all.
        assert_eq!(lines(b"ab\r\ncd", usize::MAX, 1).len(), 2);
        assert_eq!(lines(b"abcd\r", 4, 1), [Line::Text(b"abcd".to_vec())]);
    }

    #[cfg(feature = "tokio")]
    #[tokio::test]
    async fn reads_lines_of_an_async_reader() {
        let (client, mut server) = tokio::io::duplex(3);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            server
                .write_all(b"{\"a\":1}\r\n\n{\"b\":2}")
                .await
                .expect("written");
        });
        let mut lines = AsyncLines::new(client, 100);
        let mut seen = Vec::new();
        while let Some(line) = lines.next().await.expect("read") {
            seen.push(line);
        }
        writer.await.expect("the writer ends");
        assert_eq!(
            seen,
            [
                Line::Text(b"{\"a\":1}".to_vec()),
                Line::Text(b"{\"b\":2}".to_vec())
            ]
        );
    }
}
