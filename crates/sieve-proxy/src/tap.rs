//! Seeing the raw JSON that rmcp's typed model drops.
//!
//! rmcp decodes every message into typed structs that keep only the fields
//! the spec names: `filter` on `tools/list`, `concerns` in `initialize`,
//! upstream tool fields such as `groups` or `execution` are gone before a
//! handler runs. [`LineTap`] wraps the reading half of a line-delimited
//! transport (stdio, a child's stdout, an in-memory pipe) and shows each
//! complete line to a [`RawLog`] before rmcp decodes it, without changing a
//! byte. Handlers then look the raw params or result up by JSON-RPC id.

use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// A line longer than this is not recorded (it is still passed on).
const MAX_LINE: usize = 64 * 1024 * 1024;
/// Entries kept per log; the oldest go first.
const MAX_ENTRIES: usize = 256;

/// Which raw messages a [`RawLog`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Params of requests from a host (and of `notifications/initialized`).
    RequestParams,
    /// Results of list requests answered by an upstream.
    ListResults,
}

/// Raw params or results by JSON-RPC id, filled by a [`LineTap`].
#[derive(Debug, Clone)]
pub struct RawLog {
    keep: Keep,
    entries: Arc<Mutex<Entries>>,
}

#[derive(Debug, Default)]
struct Entries {
    by_key: HashMap<String, Value>,
    order: VecDeque<String>,
}

/// The key under which `notifications/initialized` params are kept.
pub const INITIALIZED: &str = "notifications/initialized";

impl RawLog {
    pub fn new(keep: Keep) -> RawLog {
        RawLog {
            keep,
            entries: Arc::default(),
        }
    }

    /// Looks at one line; keeps what this log is for.
    pub fn observe(&self, line: &[u8]) {
        // Cheap pre-checks avoid parsing the many lines we do not keep.
        let wanted = match self.keep {
            Keep::RequestParams => contains(line, b"\"params\""),
            Keep::ListResults => {
                contains(line, b"\"result\"")
                    && [
                        &b"\"tools\""[..],
                        b"\"prompts\"",
                        b"\"resources\"",
                        b"\"resourceTemplates\"",
                    ]
                    .iter()
                    .any(|key| contains(line, key))
            }
        };
        if !wanted {
            return;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let key = match (
            message.get("id"),
            message.get("method").and_then(Value::as_str),
        ) {
            (Some(id), _) => id_key(id),
            (None, Some(INITIALIZED)) => INITIALIZED.to_string(),
            _ => return,
        };
        let field = match self.keep {
            Keep::RequestParams => "params",
            Keep::ListResults => "result",
        };
        if let Some(value) = message.remove(field) {
            self.insert(key, value);
        }
    }

    fn insert(&self, key: String, value: Value) {
        let mut entries = self.entries.lock().expect("raw log lock");
        if entries.by_key.insert(key.clone(), value).is_none() {
            entries.order.push_back(key);
        }
        while entries.order.len() > MAX_ENTRIES {
            if let Some(old) = entries.order.pop_front() {
                entries.by_key.remove(&old);
            }
        }
    }

    /// Takes the raw value recorded for `key` (see [`id_key`]).
    pub fn take(&self, key: &str) -> Option<Value> {
        let mut entries = self.entries.lock().expect("raw log lock");
        let value = entries.by_key.remove(key)?;
        entries.order.retain(|k| k != key);
        Some(value)
    }
}

/// The lookup key of a JSON-RPC id: its JSON text (`7` and `"7"` differ).
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// An [`AsyncRead`] that passes bytes through unchanged and shows every
/// complete line to a [`RawLog`].
pub struct LineTap<R> {
    inner: R,
    line: Vec<u8>,
    overflow: bool,
    log: RawLog,
}

impl<R> LineTap<R> {
    pub fn new(inner: R, log: RawLog) -> LineTap<R> {
        LineTap {
            inner,
            line: Vec::new(),
            overflow: false,
            log,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            if !self.overflow {
                self.line.extend_from_slice(&bytes[..end]);
                self.log.observe(&self.line);
            }
            self.line.clear();
            self.overflow = false;
            bytes = &bytes[end + 1..];
        }
        if self.line.len() + bytes.len() > MAX_LINE {
            self.overflow = true;
            self.line.clear();
        } else if !self.overflow {
            self.line.extend_from_slice(bytes);
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineTap<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            let fresh = buf.filled()[before..].to_vec();
            this.feed(&fresh);
        }
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn passes_bytes_through_and_keeps_request_params() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"filter":{"groups":["g"]}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"concerns":{"cost":"minimal"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
            "\n"
        );
        let log = RawLog::new(Keep::RequestParams);
        let mut tap = LineTap::new(input.as_bytes(), log.clone());
        let mut out = String::new();
        tap.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, input, "bytes are unchanged");
        assert_eq!(log.take("1").unwrap()["filter"]["groups"][0], "g");
        assert!(log.take("1").is_none(), "taken once");
        assert_eq!(
            log.take(INITIALIZED).unwrap()["concerns"]["cost"],
            "minimal"
        );
        assert!(log.take("\"a\"").is_none(), "no params, nothing kept");
    }

    #[tokio::test]
    async fn keeps_list_results_split_across_reads() {
        let line = format!(
            "{}\n",
            r#"{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","groups":["x"],"execution":{"taskSupport":"optional"}}]}}"#
        );
        let log = RawLog::new(Keep::ListResults);
        // A reader that hands out 5 bytes at a time.
        let (client, mut server) = tokio::io::duplex(5);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            server.write_all(line.as_bytes()).await.unwrap();
        });
        let mut tap = LineTap::new(client, log.clone());
        let mut out = Vec::new();
        tap.read_to_end(&mut out).await.unwrap();
        writer.await.unwrap();
        let result = log.take("7").expect("result kept");
        assert_eq!(result["tools"][0]["execution"]["taskSupport"], "optional");
    }

    #[test]
    fn bounded() {
        let log = RawLog::new(Keep::RequestParams);
        for i in 0..(MAX_ENTRIES + 10) {
            log.observe(format!(r#"{{"id":{i},"method":"m","params":{{}}}}"#).as_bytes());
        }
        assert!(log.take("0").is_none(), "oldest dropped");
        assert!(log.take(&(MAX_ENTRIES + 9).to_string()).is_some());
    }
}
