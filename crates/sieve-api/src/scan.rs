//! What the tool-poisoning scanner finds in the tools the servers (or
//! catalog files) list: `mcp-sieve scan` and its `--json`
//! (`[{name, findings: [{kind, field, excerpt, says}]}]`).

use serde::Serialize;
use sieve_core::Kind;
use sieve_core::scan::Finding;

use crate::Listed;

/// One tool with what the scanner found in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScannedTool {
    /// The name hosts see.
    pub name: String,
    pub findings: Vec<Finding>,
}

/// The tools of `listed` (of `server` alone when given) with findings, in
/// catalog order; each tool is scanned knowing every other server's tools.
pub fn findings(listed: &Listed, server: Option<&str>) -> Vec<ScannedTool> {
    let mut found = listed.catalog.scan();
    listed
        .catalog
        .of_kind(Kind::Tool)
        .filter(|p| server.is_none_or(|s| p.server == s))
        .filter_map(|p| {
            let findings = found.remove(&(p.server.clone(), p.name.clone()))?;
            (!findings.is_empty()).then(|| ScannedTool {
                name: p.exposed_name.clone(),
                findings,
            })
        })
        .collect()
}
