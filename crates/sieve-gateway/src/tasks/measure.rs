//! What each call through the proxy measured, for the built-in concern
//! `cost` (sieve-core's `cost`): the size of its result and how long it
//! took, for every host's `tools/call` that reached its server and was
//! answered with a result (a tool's error included; not a refusal, a
//! failure, a cut-off call, a task or a call parked for the host's
//! answers).
//!
//! Measuring costs the call almost nothing: its result's size is added up
//! from the lengths of what the model reads, without serialising it
//! ([`result_bytes`]), from the typed result on the call's path or by the
//! writer from the text the server sent ([`Size`]), and handed with the
//! duration to one writer thread; the call never waits for it. The writer turns the bytes into tokens,
//! records what is waiting in one go (pruning each tool to its last
//! calls, `sieve_ledger`'s `measurements`), then reads back what those
//! tools' kept calls now measure and sends it to the engine, which puts it
//! in force ([`MeasuredSink`]).
//!
//! A measurement that cannot be written is logged, once until one is
//! written again; the call is not affected.

use super::{Call, Running, Tasks};
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use sieve_core::cost::{Measurements, kept_of_each_tool};
use sieve_core::tokenizer::{BYTES_PER_TOKEN, tokens_of_bytes};
use sieve_ledger::{CallMeasurement, Ledger};
use std::borrow::Cow;
use std::io;
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::oneshot;

/// The most calls one write records.
const BATCH: usize = 4096;

/// How long the writer gathers calls before it writes them: a busy proxy
/// writes its measurements a few times a second, not once per call, and
/// each write wakes every process that watches the ledger.
const SETTLE: Duration = Duration::from_millis(250);

/// How long a stopping proxy waits for its last measurements to be
/// written.
const FLUSH_WAIT: Duration = Duration::from_secs(5);

/// What an image, audio or other binary block of a result counts for, in
/// bytes of text: the 1,600 tokens a model takes a large image for. Its
/// base64 text is not what the model reads.
const BINARY_BLOCK_BYTES: u64 = 1_600 * BYTES_PER_TOKEN;

/// Where the writer sends what the tools it just wrote measure now, from
/// every call the ledger keeps of them (this process's and others').
pub(crate) type MeasuredSink = tokio::sync::mpsc::UnboundedSender<Measurements>;

/// What the writer is asked.
enum Op {
    /// Record a call.
    Measure(Measure),
    /// Say when everything asked before is written.
    Flush(oneshot::Sender<()>),
}

/// A call as its path measured it: its result in bytes, not yet tokens.
struct Measure {
    server: String,
    /// The tool's upstream name.
    tool: String,
    at: i64,
    size: Size,
    ms: u64,
}

/// The size of a call's result: counted on the call's path from its typed
/// result, or its JSON text as the server sent it, read by the writer.
pub(crate) enum Size {
    Counted(u64),
    Text(String),
}

impl Size {
    /// The result's bytes as [`result_bytes`] counts them; a text that is
    /// not a call's result counts for its length.
    fn bytes(self) -> u64 {
        match self {
            Size::Counted(bytes) => bytes,
            Size::Text(text) => text_bytes(&text),
        }
    }
}

/// The most calls of one tool measured in one [`SETTLE`]: as many as the
/// ledger keeps of it ([`kept_of_each_tool`]). A busy tool's other calls
/// are not measured at all, rather than measured, queued and dropped by
/// the writer: under load that work was a sixth of the proxy's per call.
const MEASURED_PER_SETTLE: u32 = sieve_core::cost::CALLS_KEPT as u32;

/// The writer thread's queue; the thread ends when this is dropped.
pub(crate) struct Measurer {
    queue: mpsc::Sender<Op>,
    /// Per server, per tool: when its current window began and how many
    /// of its calls were measured in it.
    windows: std::sync::Mutex<foldhash::HashMap<String, foldhash::HashMap<String, Window>>>,
}

/// One tool's measuring window.
#[derive(Clone, Copy)]
struct Window {
    began: std::time::Instant,
    measured: u32,
}

impl Measurer {
    /// Whether a call of `tool` on `server` ending now is measured: the
    /// first [`MEASURED_PER_SETTLE`] of each [`SETTLE`] are.
    fn takes(&self, server: &str, tool: &str) -> bool {
        let now = std::time::Instant::now();
        let Ok(mut windows) = self.windows.lock() else {
            return true;
        };
        let tools = match windows.get_mut(server) {
            Some(tools) => tools,
            None => windows.entry(server.to_string()).or_default(),
        };
        let window = match tools.get_mut(tool) {
            Some(window) => window,
            None => tools.entry(tool.to_string()).or_insert(Window {
                began: now,
                measured: 0,
            }),
        };
        if now.duration_since(window.began) >= SETTLE {
            *window = Window {
                began: now,
                measured: 0,
            };
        }
        if window.measured >= MEASURED_PER_SETTLE {
            return false;
        }
        window.measured += 1;
        true
    }
}

impl Measurer {
    /// Starts the writer of `ledger`, which tells `sink` what it wrote;
    /// `None` if no thread could be made (calls are then not measured).
    pub(crate) fn start(ledger: Ledger, sink: MeasuredSink) -> Option<Measurer> {
        let mut failing = false;
        let spawned = super::batch::writer_settling(
            "measure-writer",
            BATCH,
            SETTLE,
            move |batch: Vec<Op>| {
                write(&ledger, &sink, batch, &mut failing);
            },
        );
        match spawned {
            Ok(queue) => Some(Measurer {
                queue,
                windows: Default::default(),
            }),
            Err(error) => {
                tracing::warn!(
                    "calls will not be measured for the concern cost: no thread for it ({error})"
                );
                None
            }
        }
    }
}

/// Writes one batch, then tells `sink` what its tools measure now and
/// each flush that it is done.
fn write(ledger: &Ledger, sink: &MeasuredSink, batch: Vec<Op>, failing: &mut bool) {
    let mut measured = Vec::new();
    let mut flushed = Vec::new();
    for op in batch {
        match op {
            Op::Measure(m) => measured.push(m),
            Op::Flush(done) => flushed.push(done),
        }
    }
    // Only what the ledger keeps is read: a busy tool's older calls of
    // the batch would be dropped as soon as they were written.
    let calls: Vec<CallMeasurement> = newest_of_each_tool(measured)
        .into_iter()
        .map(|m| CallMeasurement {
            server: m.server,
            tool: m.tool,
            at: m.at,
            result_tokens: tokens_of_bytes(m.size.bytes()),
            duration_ms: m.ms,
        })
        .collect();
    if !calls.is_empty() {
        let mut tools: Vec<(String, String)> = calls
            .iter()
            .map(|c| (c.server.clone(), c.tool.clone()))
            .collect();
        tools.sort_unstable();
        tools.dedup();
        match ledger
            .measure_all(&calls)
            .and_then(|()| ledger.measured_of(&tools))
        {
            Ok(measured) => {
                *failing = false;
                let _ = sink.send(measured);
            }
            Err(error) => {
                if !std::mem::replace(failing, true) {
                    tracing::warn!("{error}; calls are not being measured for the concern cost");
                }
            }
        }
    }
    for done in flushed {
        let _ = done.send(());
    }
}

/// The calls of `measured` the ledger keeps ([`kept_of_each_tool`]), in
/// their order.
fn newest_of_each_tool(measured: Vec<Measure>) -> Vec<Measure> {
    let kept = kept_of_each_tool(
        measured
            .iter()
            .map(|m| (m.server.as_str(), m.tool.as_str())),
    );
    measured
        .into_iter()
        .zip(kept)
        .filter_map(|(m, keep)| keep.then_some(m))
        .collect()
}

impl Tasks {
    /// Whether `call`, ending now, is measured: there is a writer and its
    /// tool's window has room ([`MEASURED_PER_SETTLE`]).
    pub(super) fn measures(&self, call: &Call<'_>) -> bool {
        match (&self.measurer, call.params.tool_name()) {
            (Some(measurer), Some(tool)) => measurer.takes(call.server, tool),
            _ => false,
        }
    }

    /// Hands what `call`'s `result` measured to the writer, if there is
    /// one; returns at once. Asked only of a call [`Tasks::measures`].
    pub(super) fn measure(&self, call: &Call<'_>, size: Size, running: &Running) {
        let (Some(measurer), Some(tool)) = (&self.measurer, call.params.tool_name()) else {
            return;
        };
        let took = running.started.elapsed().as_millis();
        let measured = Measure {
            server: call.server.to_string(),
            tool: tool.to_string(),
            at: running.at,
            size,
            ms: u64::try_from(took).unwrap_or(u64::MAX),
        };
        // The writer lives as long as `Tasks` does.
        let _ = measurer.queue.send(Op::Measure(measured));
    }

    /// Waits (a few seconds at most) until every call measured so far is
    /// written: a proxy that stops keeps what its last calls measured.
    pub(crate) async fn flush_measurements(&self) {
        let Some(measurer) = &self.measurer else {
            return;
        };
        let (done, written) = oneshot::channel();
        if measurer.queue.send(Op::Flush(done)).is_ok() {
            let _ = tokio::time::timeout(FLUSH_WAIT, written).await;
        }
    }
}

/// The bytes of what the model reads of `result`: the text of its
/// content, embedded text resources and links, and a fixed
/// [`BINARY_BLOCK_BYTES`] per image, audio or blob. `structuredContent`
/// counts only when there is no content: a tool that returns both sends
/// the same data twice (the spec asks for the JSON as text too), and
/// hosts give the model the text. Adding up lengths costs a step per
/// block; only a result with structured content alone is serialised, to
/// count its bytes, and into no buffer.
pub(crate) fn result_bytes(result: &CallToolResult) -> u64 {
    let content: u64 = result.content.iter().map(block_bytes).sum();
    match &result.structured_content {
        Some(structured) if result.content.is_empty() => {
            let mut counter = Counter(0);
            match serde_json::to_writer(&mut counter, structured) {
                Ok(()) => counter.0,
                Err(_) => 0,
            }
        }
        _ => content,
    }
}

/// [`result_bytes`] of a result as the server's JSON text, read for the
/// lengths alone: no text is copied unless it has escapes, and an image's
/// base64 is skipped unread. A text that is not a call's result counts
/// for its length.
fn text_bytes(text: &str) -> u64 {
    let Ok(result) = serde_json::from_str::<ResultText<'_>>(text) else {
        return text.len() as u64;
    };
    let content: u64 = result.content.iter().map(BlockText::bytes).sum();
    if !result.content.is_empty() || result.structured.is_none() {
        return content;
    }
    // Structured content alone (rare): counted as result_bytes counts it.
    match serde_json::from_str::<CallToolResult>(text) {
        Ok(result) => result_bytes(&result),
        Err(_) => text.len() as u64,
    }
}

/// What [`text_bytes`] reads of a call's result.
#[derive(serde::Deserialize)]
struct ResultText<'a> {
    #[serde(default, borrow)]
    content: Vec<BlockText<'a>>,
    #[serde(default, rename = "structuredContent")]
    structured: Option<serde::de::IgnoredAny>,
}

/// What [`text_bytes`] reads of one content block.
#[derive(serde::Deserialize)]
struct BlockText<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    text: Option<Unescaped>,
    #[serde(default)]
    resource: Option<ResourceText>,
    #[serde(default, borrow)]
    uri: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    description: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct ResourceText {
    #[serde(default)]
    text: Option<Unescaped>,
}

/// A JSON string read for the length of its text once unescaped, in
/// bytes, without unescaping it into a copy: a file's text has escapes on
/// every line, and a result may hold megabytes of it.
struct Unescaped(usize);

impl<'de> serde::Deserialize<'de> for Unescaped {
    fn deserialize<D: serde::Deserializer<'de>>(reader: D) -> Result<Self, D::Error> {
        let raw = <&serde_json::value::RawValue>::deserialize(reader)?.get();
        match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            Some(inner) => Ok(Unescaped(unescaped_len(inner))),
            None => Err(serde::de::Error::custom("a string")),
        }
    }
}

/// The length in bytes of the text the inside of a JSON string (checked
/// as JSON already) stands for: each escape is the one character it
/// stands for, a `\u` pair of surrogates one four-byte character.
fn unescaped_len(inner: &str) -> usize {
    let bytes = inner.as_bytes();
    let unit = |at: usize| {
        inner
            .get(at..at + 4)
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
    };
    let mut len = bytes.len();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let escape = at + found;
        if bytes.get(escape + 1) != Some(&b'u') {
            // `\n`, `\"` and the like: two bytes for one.
            len -= 1;
            at = escape + 2;
            continue;
        }
        let code = unit(escape + 2).unwrap_or(0xFFFD);
        let paired = (0xD800..0xDC00).contains(&code)
            && bytes.get(escape + 6..escape + 8) == Some(b"\\u")
            && unit(escape + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            // Twelve bytes for a character of four.
            len -= 8;
            at = escape + 12;
        } else {
            let char_len = char::from_u32(code).map_or(3, char::len_utf8);
            len -= 6 - char_len;
            at = escape + 6;
        }
    }
    len
}

impl BlockText<'_> {
    /// What the model reads of the block, as [`block_bytes`] reads a
    /// typed one.
    fn bytes(&self) -> u64 {
        let read = match &*self.kind {
            "text" => Read::Text(self.text.as_ref().map_or(0, |text| text.0)),
            "resource" => match self.resource.as_ref().and_then(|r| r.text.as_ref()) {
                Some(text) => Read::Text(text.0),
                None => Read::Binary,
            },
            "resource_link" => Read::Link {
                uri: self.uri.as_deref().unwrap_or_default(),
                name: self.name.as_deref().unwrap_or_default(),
                description: self.description.as_deref(),
            },
            _ => Read::Binary,
        };
        read.bytes()
    }
}

fn block_bytes(block: &ContentBlock) -> u64 {
    let read = match block {
        ContentBlock::Text(text) => Read::Text(text.text.len()),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => Read::Text(text.len()),
            _ => Read::Binary,
        },
        ContentBlock::ResourceLink(link) => Read::Link {
            uri: &link.uri,
            name: &link.name,
            description: link.description.as_deref(),
        },
        _ => Read::Binary,
    };
    read.bytes()
}

/// What the model reads of a content block, typed or read from text:
/// the one rule both count by.
enum Read<'a> {
    /// Text, or a resource's text: its length in bytes.
    Text(usize),
    /// A link to a resource.
    Link {
        uri: &'a str,
        name: &'a str,
        description: Option<&'a str>,
    },
    /// An image, audio or blob: [`BINARY_BLOCK_BYTES`].
    Binary,
}

impl Read<'_> {
    fn bytes(&self) -> u64 {
        let bytes = match self {
            Read::Text(len) => *len,
            Read::Link {
                uri,
                name,
                description,
            } => uri.len() + name.len() + description.map_or(0, str::len),
            Read::Binary => return BINARY_BLOCK_BYTES,
        };
        bytes as u64
    }
}

/// A writer that keeps nothing but how many bytes it was given.
struct Counter(u64);

impl io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a tool result")
    }

    #[test]
    fn a_busy_tool_has_as_many_calls_measured_each_settle_as_the_ledger_keeps() {
        let measurer = Measurer {
            queue: mpsc::channel().0,
            windows: Default::default(),
        };
        let taken = (0..3 * MEASURED_PER_SETTLE)
            .filter(|_| measurer.takes("gh", "list_issues"))
            .count();
        assert_eq!(taken, MEASURED_PER_SETTLE as usize);
        // Another tool, of this server or another, has its own window.
        assert!(measurer.takes("gh", "get_issue"));
        assert!(measurer.takes("gl", "list_issues"));
        // A window past its settle starts again.
        measurer
            .windows
            .lock()
            .unwrap()
            .get_mut("gh")
            .unwrap()
            .get_mut("list_issues")
            .unwrap()
            .began -= SETTLE;
        assert!(measurer.takes("gh", "list_issues"));
    }

    fn measure(tool: &str, at: i64) -> Measure {
        Measure {
            server: "s".into(),
            tool: tool.into(),
            at,
            size: Size::Counted(1),
            ms: 1,
        }
    }

    #[test]
    fn a_batch_reads_only_the_calls_the_ledger_keeps() {
        let total = sieve_core::cost::CALLS_KEPT as i64 + 7;
        let mut batch: Vec<Measure> = (0..total).map(|at| measure("busy", at)).collect();
        batch.insert(3, measure("quiet", -1));
        let kept: Vec<(String, i64)> = newest_of_each_tool(batch)
            .into_iter()
            .map(|m| (m.tool, m.at))
            .collect();
        let mut expected = vec![("quiet".to_string(), -1)];
        expected.extend((7..total).map(|at| ("busy".to_string(), at)));
        assert_eq!(kept, expected, "the newest of each tool, in order");
    }

    #[test]
    fn a_result_counts_what_the_model_reads() {
        let text = result(json!({"content": [
            {"type": "text", "text": "x".repeat(1_000)},
            {"type": "text", "text": "ümlaut"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "y".repeat(50)}},
            {"type": "resource_link", "uri": "file:///b", "name": "b"}
        ]}));
        assert_eq!(
            result_bytes(&text),
            1_000 + "ümlaut".len() as u64 + 50 + 10,
            "bytes of UTF-8"
        );
        let image = result(json!({"content": [
            {"type": "image", "data": "A".repeat(400_000), "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///c", "blob": "QUJD"}}
        ]}));
        assert_eq!(
            result_bytes(&image),
            2 * BINARY_BLOCK_BYTES,
            "a binary block as the model takes it, not its base64"
        );
        let both = result(json!({
            "content": [{"type": "text", "text": "{\"n\":1}"}],
            "structuredContent": {"n": 1}
        }));
        assert_eq!(result_bytes(&both), 7, "the same data is not counted twice");
        let structured = result(json!({"content": [], "structuredContent": {"rows": [1, 2, 3]}}));
        assert_eq!(
            result_bytes(&structured),
            r#"{"rows":[1,2,3]}"#.len() as u64,
            "structured content alone counts as JSON"
        );
        assert_eq!(result_bytes(&result(json!({"content": []}))), 0);
    }

    #[test]
    fn a_string_is_measured_as_serde_json_unescapes_it() {
        for raw in [
            r#""""#,
            r#""plain""#,
            r#""line\nwith \"quotes\", a \\ and a \/ \b\f\r\t""#,
            r#""\u0041\u00e9\u20ac\ud83d\ude00 and \u0000""#,
            r#""ümlaut \u00fc 日本""#,
            r#""\\u0041 is not an escape""#,
        ] {
            let read: String = serde_json::from_str(raw).expect("a JSON string");
            let measured: Unescaped = serde_json::from_str(raw).expect("a JSON string");
            assert_eq!(measured.0, read.len(), "{raw}");
        }
        assert!(
            serde_json::from_str::<Unescaped>("12").is_err(),
            "not a string"
        );
    }

    #[test]
    fn a_result_read_as_text_counts_as_the_typed_one() {
        let results = [
            json!({"content": [
                {"type": "text", "text": "x".repeat(1_000)},
                {"type": "text", "text": "line\nwith \"escapes\" and ümlaut"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "y".repeat(50)}},
                {"type": "resource_link", "uri": "file:///b", "name": "b", "description": "the b file"}
            ], "isError": false, "_meta": {"x": 1}, "unknownField": [1, 2]}),
            json!({"content": [
                {"type": "image", "data": "A".repeat(4_000), "mimeType": "image/png"},
                {"type": "audio", "data": "QUJD", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///c", "blob": "QUJD"}}
            ]}),
            json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}}),
            json!({"content": [], "structuredContent": {"rows": [1, 2, 3], "name": "é"}}),
            json!({"content": []}),
        ];
        for value in results {
            let text = value.to_string();
            assert_eq!(
                Size::Text(text.clone()).bytes(),
                result_bytes(&result(value)),
                "{text}"
            );
        }
        assert_eq!(Size::Text("not json".into()).bytes(), 8, "its length");
    }
}
