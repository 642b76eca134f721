//! The demo's resources: a readme, the workspace's counts, every file, and
//! templates for one issue or one file, all read from the [`Workspace`].

use rmcp::{
    ErrorData as McpError,
    model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate},
};

use crate::workspace::{FILES_URI, ISSUES_URI, Workspace, file_uri};

/// The resources there are now: the readme, the stats, and each file.
pub(crate) fn list(workspace: &Workspace) -> Vec<Resource> {
    let mut resources = vec![
        Resource::new("demo://readme", "readme")
            .with_title("About the demo")
            .with_mime_type("text/markdown"),
        Resource::new("demo://stats", "stats")
            .with_description("Counts of files, issues, invoices and users")
            .with_mime_type("application/json"),
    ];
    resources.extend(workspace.file_paths().map(|path| {
        Resource::new(file_uri(path), path)
            .with_mime_type("text/plain")
            .with_size(workspace.file(path).map_or(0, |t| t.len() as u64))
    }));
    resources
}

pub(crate) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("demo://issues/{id}", "issue")
            .with_description("One issue as JSON")
            .with_mime_type("application/json"),
        ResourceTemplate::new("demo://files/{path}", "file")
            .with_description("One workspace file")
            .with_mime_type("text/plain"),
    ]
}

/// What `uri` holds, or a "resource not found" error naming it.
pub(crate) fn read(workspace: &Workspace, uri: String) -> Result<ReadResourceResult, McpError> {
    let text = if uri == "demo://readme" {
        Some("# sieve-demo\n\nForty tools over files, issues, invoices and users.\n".to_owned())
    } else if uri == "demo://stats" {
        Some(workspace.stats().to_string())
    } else if let Some(path) = uri.strip_prefix(FILES_URI) {
        workspace.file(path).map(str::to_owned)
    } else if let Some(id) = uri.strip_prefix(ISSUES_URI) {
        id.parse()
            .ok()
            .and_then(|id| workspace.issue_json(id))
            .map(|issue| issue.to_string())
    } else {
        None
    };
    let text =
        text.ok_or_else(|| McpError::resource_not_found(format!("no resource {uri}"), None))?;
    Ok(ReadResourceResult::new(vec![ResourceContents::text(
        text, uri,
    )]))
}
