//! Why a demo tool did not do what it was asked. The sentence is what the
//! caller reads in the tool's error result, with what to call instead.

/// A demo tool's failure: a bad argument, something that is not there, or
/// a rule of the demo's world.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ToolError {
    #[error("argument `{name}` {problem}")]
    Argument { name: String, problem: ArgProblem },
    #[error("no file {path}; call list_files to see what exists")]
    NoFile { path: String },
    #[error("no issue #{id}; call list_issues to see what exists")]
    NoIssue { id: u64 },
    #[error("no invoice {id}; call list_invoices to see what exists")]
    NoInvoice { id: String },
    #[error("no user {name}; call list_users to see who exists")]
    NoUser { name: String },
    #[error("{path} already exists")]
    FileExists { path: String },
    #[error("user {name} already exists")]
    UserExists { name: String },
    #[error("{email} is not an e-mail address")]
    NotEmail { email: String },
    #[error("amount_cents must be more than zero")]
    NoAmount,
    #[error("issue numbers are positive")]
    NegativeIssue,
    /// An invoice moved from a status it cannot leave that way.
    #[error(
        "invoice {id} is {status}; only {} invoices can become {to}",
        .from.join(" or ")
    )]
    InvoiceStatus {
        id: String,
        status: &'static str,
        from: Vec<&'static str>,
        to: &'static str,
    },
    /// The tool is not one `Workspace::call` runs.
    #[error("{name} is not a plain demo tool")]
    NotPlain { name: String },
}

/// What is wrong with an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum ArgProblem {
    #[error("is required")]
    Required,
    #[error("must be a string")]
    NotString,
    #[error("must be an integer")]
    NotInteger,
    #[error("must be true or false")]
    NotBool,
    #[error("must be a list of strings")]
    NotStringList,
}

impl ToolError {
    /// Argument `name` has `problem`.
    pub(crate) fn argument(name: &str, problem: ArgProblem) -> ToolError {
        ToolError::Argument {
            name: name.to_string(),
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_reads_one_sentence_with_what_to_do() {
        assert_eq!(
            ToolError::argument("id", ArgProblem::Required).to_string(),
            "argument `id` is required"
        );
        assert_eq!(
            ToolError::argument("kinds", ArgProblem::NotStringList).to_string(),
            "argument `kinds` must be a list of strings"
        );
        assert_eq!(
            ToolError::NoIssue { id: 7 }.to_string(),
            "no issue #7; call list_issues to see what exists"
        );
        assert_eq!(
            ToolError::InvoiceStatus {
                id: "INV-1".into(),
                status: "paid",
                from: vec!["draft", "sent"],
                to: "void",
            }
            .to_string(),
            "invoice INV-1 is paid; only draft or sent invoices can become void"
        );
    }
}
