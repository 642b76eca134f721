//! The demo's prompts (triage an issue, draft an invoice e-mail, review a
//! file) and the completion of their arguments and of resource template
//! variables, all from the [`Workspace`].

use rmcp::{
    ErrorData as McpError,
    model::{
        CompleteResult, CompletionInfo, GetPromptRequestParams, GetPromptResult, Prompt,
        PromptArgument, PromptMessage, Role,
    },
};
use serde_json::Value;

use crate::workspace::Workspace;

/// One prompt: its name, what it is for, and its arguments.
struct PromptSpec {
    name: &'static str,
    description: &'static str,
    /// (name, description, required)
    arguments: &'static [(&'static str, &'static str, bool)],
}

const PROMPTS: &[PromptSpec] = &[
    PromptSpec {
        name: "triage_issue",
        description: "Decide priority and next step for an issue.",
        arguments: &[
            ("issue_id", "Number of the issue", true),
            ("tone", "How to phrase it: brief, friendly or formal", false),
        ],
    },
    PromptSpec {
        name: "draft_invoice_email",
        description: "Write the e-mail that goes with an invoice.",
        arguments: &[
            ("invoice_id", "Invoice id, e.g. INV-1002", true),
            ("language", "Language of the e-mail: en, de or fr", false),
        ],
    },
    PromptSpec {
        name: "review_file",
        description: "Review one file of the workspace.",
        arguments: &[
            ("path", "Path of the file", true),
            (
                "focus",
                "What to look at: correctness, style or docs",
                false,
            ),
        ],
    },
];

/// Fixed choices for optional prompt arguments, used for completion.
fn argument_choices(argument: &str) -> &'static [&'static str] {
    match argument {
        "tone" => &["brief", "friendly", "formal"],
        "language" => &["en", "de", "fr"],
        "focus" => &["correctness", "style", "docs"],
        _ => &[],
    }
}

/// Every prompt, as `prompts/list` shows it.
pub(crate) fn list() -> Vec<Prompt> {
    PROMPTS
        .iter()
        .map(|spec| {
            let arguments = spec
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    PromptArgument::new(*name)
                        .with_description(*description)
                        .with_required(*required)
                })
                .collect();
            Prompt::new(spec.name, Some(spec.description), Some(arguments))
        })
        .collect()
}

/// Prompt `request.name` filled in with its arguments.
pub(crate) fn get(
    workspace: &Workspace,
    request: GetPromptRequestParams,
) -> Result<GetPromptResult, McpError> {
    let args = request.arguments.unwrap_or_default();
    let arg = |name: &str| args.get(name).and_then(Value::as_str).map(str::to_owned);
    let required = |name: &str| {
        arg(name).ok_or_else(|| {
            McpError::invalid_params(format!("prompt argument `{name}` is required"), None)
        })
    };
    let (description, text) = match request.name.as_str() {
        "triage_issue" => {
            let id = required("issue_id")?;
            let issue = id
                .parse()
                .ok()
                .and_then(|id| workspace.issue_json(id))
                .ok_or_else(|| McpError::invalid_params(format!("no issue #{id}"), None))?;
            let tone = arg("tone").unwrap_or_else(|| "brief".into());
            (
                "Triage one issue",
                format!(
                    "In a {tone} tone, propose a priority and the next step for this issue:\n{issue}"
                ),
            )
        }
        "draft_invoice_email" => {
            let id = required("invoice_id")?;
            let invoice = workspace
                .invoice_json(&id)
                .ok_or_else(|| McpError::invalid_params(format!("no invoice {id}"), None))?;
            let language = arg("language").unwrap_or_else(|| "en".into());
            (
                "E-mail for an invoice",
                format!(
                    "Write a short e-mail in language `{language}` sending this invoice:\n{invoice}"
                ),
            )
        }
        "review_file" => {
            let path = required("path")?;
            let text = workspace
                .file(&path)
                .ok_or_else(|| McpError::invalid_params(format!("no file {path}"), None))?;
            let focus = arg("focus").unwrap_or_else(|| "correctness".into());
            (
                "Review a file",
                format!("Review {path}, focusing on {focus}:\n\n{text}"),
            )
        }
        other => {
            return Err(McpError::invalid_params(
                format!("unknown prompt {other}"),
                None,
            ));
        }
    };
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(description),
    )
}

/// The values of `argument` (of a prompt or a resource template) that
/// start with `prefix`, at most 100.
pub(crate) fn complete(
    workspace: &Workspace,
    argument: &str,
    prefix: &str,
) -> Result<CompleteResult, McpError> {
    let candidates: Vec<String> = match argument {
        "issue_id" | "id" => workspace.issue_ids().map(|id| id.to_string()).collect(),
        "invoice_id" => workspace.invoice_ids().map(str::to_owned).collect(),
        "path" => workspace.file_paths().map(str::to_owned).collect(),
        other => argument_choices(other)
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
    };
    let values: Vec<String> = candidates
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .take(100)
        .collect();
    let completion = CompletionInfo::new(values).map_err(|e| McpError::internal_error(e, None))?;
    Ok(CompleteResult::new(completion))
}
