//! A stdio MCP server that fails on purpose, for the proxy's fault tests.
//!
//! `fault-server [--tools-mb N] [--started FILE]`
//!
//! Its tools:
//! * `echo {text}`: answers the text;
//! * `crash`: the process exits (status 3) while the call is in flight;
//! * `hang`: never answers;
//! * `freeze`: the process stops itself (`SIGSTOP`): it reads nothing
//!   more, answers nothing, until it is continued or killed;
//! * `garbage`: writes a line that is no JSON-RPC message to stdout, then
//!   answers;
//! * `half_line`: writes half a message and no newline, so its answer is
//!   glued to the half and arrives unreadable;
//! * `flood {count}`: sends `count` log messages, then answers.
//!
//! `--tools-mb N` adds padding tools with long descriptions until
//! `tools/list` is about N MB. `--started FILE` appends a line to FILE at
//! every start, so a test can count restarts.

#![allow(deprecated)] // logging: deprecated in 2026-07-28, live in 2025-11-25

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;

struct FaultServer {
    tools: Arc<Vec<Tool>>,
}

fn tool(name: &str, description: &str, properties: Value) -> Tool {
    let schema = json!({"type": "object", "properties": properties});
    Tool::new(
        name.to_string(),
        description.to_string(),
        Arc::new(schema.as_object().cloned().unwrap_or_default()),
    )
}

/// The fault tools, then padding until the list is about `mb` MB.
fn tools(mb: usize) -> Vec<Tool> {
    let mut tools = vec![
        tool(
            "echo",
            "Answers the text.",
            json!({"text": {"type": "string"}}),
        ),
        tool("crash", "Exits while the call is in flight.", json!({})),
        tool("hang", "Never answers.", json!({})),
        tool(
            "freeze",
            "Stops the process: it reads nothing more.",
            json!({}),
        ),
        tool(
            "garbage",
            "Writes a line that is not JSON-RPC, then answers.",
            json!({}),
        ),
        tool(
            "half_line",
            "Writes half a message, so its answer arrives unreadable.",
            json!({}),
        ),
        tool(
            "flood",
            "Sends `count` log messages, then answers.",
            json!({"count": {"type": "integer"}}),
        ),
    ];
    let filler = "Pads the tool list so it is large. ".repeat(30);
    let mut size = 0;
    let mut n = 0;
    while size < mb * 1024 * 1024 {
        n += 1;
        let padding = tool(&format!("padding_{n:05}"), &filler, json!({}));
        size += serde_json::to_string(&padding).map_or(0, |s| s.len());
        tools.push(padding);
    }
    tools
}

/// Writes `bytes` to stdout past rmcp's writer (nothing else is written
/// while a call of ours runs).
fn raw_stdout(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

fn text(text: impl Into<String>) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}

impl ServerHandler for FaultServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("fault-server", "1"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "echo" => Ok(text(
                arguments
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            )),
            "crash" => {
                eprintln!("fault-server: crashing on purpose");
                std::process::exit(3);
            }
            "hang" => std::future::pending().await,
            "freeze" => {
                let pid = std::process::id().to_string();
                let _ = std::process::Command::new("kill")
                    .args(["-STOP", &pid])
                    .status();
                std::future::pending().await
            }
            "garbage" => {
                raw_stdout(b"this line is not JSON-RPC\n");
                Ok(text("after garbage"))
            }
            "half_line" => {
                raw_stdout(br#"{"jsonrpc":"2.0","method":"notifications/mess"#);
                Ok(text("lost in the half line"))
            }
            "flood" => {
                let count = arguments
                    .get("count")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000);
                for i in 0..count {
                    let message = LoggingMessageNotificationParam::new(
                        LoggingLevel::Info,
                        json!(format!("flood {i}")),
                    );
                    if context.peer.notify_logging_message(message).await.is_err() {
                        break;
                    }
                }
                Ok(text(format!("sent {count}")))
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool {other:?}"),
                None,
            )),
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if let Some(file) = value_of("--started") {
        let mut log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)?;
        writeln!(log, "started")?;
    }
    let mb = value_of("--tools-mb")
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(0);
    let server = FaultServer {
        tools: Arc::new(tools(mb)),
    };
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
