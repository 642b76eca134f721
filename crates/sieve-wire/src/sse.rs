//! Server-sent events (streamable HTTP): [`SseDecoder`] reads any chunking
//! of an event stream into [`Event`]s (fields `id`, `event`, `data` over
//! several lines, `retry`, comments; lines end in `\r\n`, `\r` or `\n`),
//! an event over the limit refused without being buffered; [`encode`]
//! writes one.
//!
//! As the WHATWG rules say, a field line's value loses one leading space,
//! unknown fields and comments are skipped, an `id` with a NUL is ignored
//! and a stream's last event without its blank line is dropped. Unlike
//! them, an event with an `id` or `retry` but no `data` is given too: MCP
//! servers prime a stream with one, and its id is where a client resumes.

/// One event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    pub id: Option<String>,
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: Option<String>,
    pub retry: Option<u64>,
}

/// What an [`SseDecoder`] gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    Event(Event),
    /// An event went over the limit: dropped up to its blank line.
    TooLarge {
        limit: usize,
    },
}

/// Reads an event stream, whatever its chunks.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    max: usize,
    line: Vec<u8>,
    /// The last chunk ended in `\r`: a `\n` next is the same line end.
    after_cr: bool,
    event: Event,
    /// Bytes of the event so far (line ends not counted).
    size: usize,
    discarding: bool,
    /// A line has begun (kept or, past the limit, dropped).
    mid_line: bool,
    started: bool,
}

impl SseDecoder {
    /// Events of at most `max` bytes (their lines without line ends).
    pub fn new(max: usize) -> SseDecoder {
        SseDecoder {
            max,
            line: Vec::new(),
            after_cr: false,
            event: Event::default(),
            size: 0,
            discarding: false,
            mid_line: false,
            started: false,
        }
    }

    /// Takes the next chunk; each event it completes goes to `emit`.
    pub fn feed(&mut self, mut chunk: &[u8], mut emit: impl FnMut(Decoded)) {
        if !self.started && !chunk.is_empty() {
            // A byte-order mark may open the stream, however it is cut.
            let bom = b"\xEF\xBB\xBF";
            let seen = self.line.len();
            let take = (bom.len() - seen).min(chunk.len());
            if bom[..seen] == self.line[..] && bom[seen..seen + take] == chunk[..take] {
                if seen + take == bom.len() {
                    self.line.clear();
                    self.started = true;
                } else {
                    self.line.extend_from_slice(&chunk[..take]);
                }
                chunk = &chunk[take..];
            } else {
                self.started = true;
            }
        }
        if chunk.is_empty() {
            return;
        }
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        while let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            let crlf = chunk[end] == b'\r' && chunk.get(end + 1) == Some(&b'\n');
            if chunk[end] == b'\r' && end + 1 == chunk.len() {
                self.after_cr = true;
            }
            self.take_line(&chunk[..end], &mut emit);
            chunk = &chunk[end + 1 + usize::from(crlf)..];
        }
        self.mid_line = !chunk.is_empty() || !self.line.is_empty();
        if !self.discarding {
            self.size += chunk.len();
            if self.size > self.max {
                self.refuse(&mut emit);
            } else {
                self.line.extend_from_slice(chunk);
            }
        }
    }

    fn take_line(&mut self, piece: &[u8], emit: &mut impl FnMut(Decoded)) {
        let mid_line = std::mem::take(&mut self.mid_line);
        if piece.is_empty() && self.line.is_empty() && !mid_line {
            // A blank line: the event ends.
            let event = std::mem::take(&mut self.event);
            self.size = 0;
            if !std::mem::take(&mut self.discarding)
                && (event.data.is_some() || event.id.is_some() || event.retry.is_some())
            {
                emit(Decoded::Event(event));
            }
            return;
        }
        if self.discarding {
            return;
        }
        self.size += piece.len();
        if self.size > self.max {
            self.refuse(emit);
            return;
        }
        let mut line = std::mem::take(&mut self.line);
        line.extend_from_slice(piece);
        self.field(&line);
    }

    fn refuse(&mut self, emit: &mut impl FnMut(Decoded)) {
        self.line = Vec::new();
        self.event = Event::default();
        self.discarding = true;
        emit(Decoded::TooLarge { limit: self.max });
    }

    fn field(&mut self, line: &[u8]) {
        let line = String::from_utf8_lossy(line);
        let (name, value) = match line.split_once(':') {
            Some((name, value)) => (name, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match name {
            "" => {} // a comment
            "data" => match &mut self.event.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.event.data = Some(value.to_string()),
            },
            "event" => self.event.event = Some(value.to_string()),
            "id" if !value.contains('\0') => self.event.id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.event.retry = value.parse().ok();
            }
            _ => {}
        }
    }
}

/// Appends `event` to `out` as an event stream carries it: `data` one
/// line per line of it; line ends inside `id` and `event` (which cannot
/// carry them) dropped.
pub fn encode(event: &Event, out: &mut Vec<u8>) {
    let one_line = |name: &str, value: &str, out: &mut Vec<u8>| {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend(value.bytes().filter(|b| !matches!(b, b'\r' | b'\n')));
        out.push(b'\n');
    };
    if let Some(id) = &event.id {
        one_line("id", id, out);
    }
    if let Some(name) = &event.event {
        one_line("event", name, out);
    }
    if let Some(retry) = event.retry {
        one_line("retry", &retry.to_string(), out);
    }
    if let Some(data) = &event.data {
        for line in split_lines(data) {
            one_line("data", line, out);
        }
    }
    out.push(b'\n');
}

/// The lines of `text`, cut at `\r\n`, `\r` or `\n`.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.find(['\r', '\n']) {
            Some(at) => {
                let skip = if text[at..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&text[at + skip..]);
                Some(&text[..at])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(input: &[u8], max: usize, chunk: usize) -> Vec<Decoded> {
        let mut decoder = SseDecoder::new(max);
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            decoder.feed(piece, |d| out.push(d));
        }
        out
    }

    #[test]
    fn fields_line_ends_and_comments() {
        let input = b"\xEF\xBB\xBF: a comment\r\nid: 1\revent: message\ndata: {\"a\":\r\ndata:1}\n\nretry: 50\nid\n\ndata\n\nx: y\n\n";
        let expected = [
            Decoded::Event(Event {
                id: Some("1".into()),
                event: Some("message".into()),
                data: Some("{\"a\":\n1}".into()),
                retry: None,
            }),
            Decoded::Event(Event {
                id: Some(String::new()),
                retry: Some(50),
                ..Event::default()
            }),
            Decoded::Event(Event {
                data: Some(String::new()),
                ..Event::default()
            }),
        ];
        for chunk in 1..=input.len() {
            assert_eq!(decode(input, 100, chunk), expected, "chunks of {chunk}");
        }
    }

    #[test]
    fn an_event_over_the_limit_is_refused_and_reading_goes_on() {
        let input = format!("data: {}\n\ndata: ok\n\n", "x".repeat(50));
        for chunk in [1, 7, input.len()] {
            assert_eq!(
                decode(input.as_bytes(), 20, chunk),
                [
                    Decoded::TooLarge { limit: 20 },
                    Decoded::Event(Event {
                        data: Some("ok".into()),
                        ..Event::default()
                    })
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn encoded_events_decode_to_themselves() {
        let event = Event {
            id: Some("7\n".into()),
            event: Some("message".into()),
            data: Some("{\"a\":1}\r\n\nb".into()),
            retry: Some(3),
        };
        let mut out = Vec::new();
        encode(&event, &mut out);
        assert_eq!(
            String::from_utf8(out.clone()).expect("text"),
            "id: 7\nevent: message\nretry: 3\ndata: {\"a\":1}\ndata: \ndata: b\n\n"
        );
        let decoded = decode(&out, 1000, out.len());
        assert_eq!(
            decoded,
            [Decoded::Event(Event {
                id: Some("7".into()),
                data: Some("{\"a\":1}\n\nb".into()),
                ..event
            })]
        );
    }
}
