//! A stdio MCP server that lists N tools made from the real catalogs of
//! `tests/fixtures/catalogs` (GitHub's 117 tools and the others, repeated
//! with a numbered suffix until there are N), for measuring lists of
//! thousands of tools through the proxy. It answers nothing but the
//! handshake and `tools/list`.
//!
//! `catalog-server N`

use rmcp::model::{
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::sync::Arc;

struct CatalogServer {
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for CatalogServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("catalog-server", "1"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }
}

/// `count` tools: the fixture catalogs' tools in turn, each round after
/// the first renamed `<name>_<round>`, every name once (MCP wants a
/// server's tool names unique, and the quarantine holds back a second
/// definition under a name already approved).
fn tools(count: usize) -> Vec<Tool> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/catalogs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut base = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a catalog is readable");
        if let Ok(tools) = sieve_core::parse_tool_list(&path.display().to_string(), &text) {
            base.extend(tools);
        }
    }
    assert!(!base.is_empty(), "no catalog in {}", dir.display());
    // Two catalogs may name a tool alike (GitHub's old and new servers):
    // a server's names are unique, so a later one gets its file's number.
    let mut seen = std::collections::HashSet::new();
    for (i, tool) in base.iter_mut().enumerate() {
        let name = tool["name"].as_str().unwrap_or("tool").to_string();
        if !seen.insert(name.clone()) {
            let unique = format!("{name}_dup{i}");
            seen.insert(unique.clone());
            tool["name"] = unique.into();
        }
    }
    (0..count)
        .map(|i| {
            let mut tool = base[i % base.len()].clone();
            let round = i / base.len();
            if round > 0 {
                let name = tool["name"].as_str().unwrap_or("tool").to_string();
                tool["name"] = format!("{name}_{round}").into();
            }
            serde_json::from_value(tool).expect("a catalog tool is an MCP tool")
        })
        .collect()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("usage: catalog-server N (the number of tools)"))?;
    let server = CatalogServer {
        tools: Arc::new(tools(count)),
    };
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
