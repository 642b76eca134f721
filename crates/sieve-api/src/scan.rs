//! What the tool-poisoning scanner finds in the tools and prompts the
//! servers (or catalog files) list: `mcp-sieve scan` and its `--json`
//! (`[{name, kind, findings: [{kind, field, excerpt, says}]}]`).

use serde::Serialize;
use sieve_core::Kind;
use sieve_core::scan::Finding;

use crate::Listed;

/// One tool or prompt with what the scanner found in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScannedTool {
    /// The name hosts see.
    pub name: String,
    /// `tool` or `prompt`.
    pub kind: Kind,
    pub findings: Vec<Finding>,
}

/// The tools and prompts of `listed` (of `server` alone when given) with
/// findings, tools first, each in catalog order; each tool is scanned
/// knowing every other server's tools. A prompt's findings are reported,
/// not held: quarantine holds tools (DESIGN §9).
pub fn findings(listed: &Listed, server: Option<&str>) -> Vec<ScannedTool> {
    let mut found = listed.catalog.scan();
    let of_server = |p: &&sieve_core::Primitive| server.is_none_or(|s| p.server == s);
    let tools = listed
        .catalog
        .of_kind(Kind::Tool)
        .filter(of_server)
        .filter_map(|p| {
            let findings = found.remove(&(p.server.clone(), p.name.clone()))?;
            (!findings.is_empty()).then(|| ScannedTool {
                name: p.exposed_name.clone(),
                kind: Kind::Tool,
                findings,
            })
        });
    let prompts = listed
        .catalog
        .of_kind(Kind::Prompt)
        .filter(of_server)
        .filter_map(|p| {
            let findings = sieve_core::scan::scan_prompt(&p.definition);
            (!findings.is_empty()).then(|| ScannedTool {
                name: p.exposed_name.clone(),
                kind: Kind::Prompt,
                findings,
            })
        });
    tools.chain(prompts).collect()
}
