//! The demo's in-memory world (files, issues, invoices, users, an audit
//! log) and what each plain tool does to it.
//!
//! Nothing here is async or knows about MCP messages: a tool call is a
//! method name plus JSON arguments in, JSON or a user-facing error out, so
//! the behaviour is easy to test and the server stays a thin shell.

use std::collections::BTreeMap;

use rmcp::model::JsonObject;
use serde::Serialize;
use serde_json::{Value, json};

use crate::tool_error::{ArgProblem, ToolError};

/// What a tool call changed that clients may want to hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// A file was created or deleted, so the resource list changed.
    ResourceList,
    /// The content behind this resource URI changed.
    Resource(String),
}

#[derive(Debug, Clone, Serialize)]
struct Issue {
    id: u64,
    title: String,
    body: String,
    state: &'static str,
    labels: Vec<String>,
    priority: String,
    assignee: Option<String>,
    comments: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
struct Invoice {
    id: String,
    customer: String,
    amount_cents: i64,
    currency: String,
    memo: String,
    status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
struct User {
    name: String,
    email: String,
    role: String,
    active: bool,
    api_key: String,
}

/// All demo state. One per server, shared by every connection.
#[derive(Debug)]
pub(super) struct Workspace {
    files: BTreeMap<String, String>,
    issues: BTreeMap<u64, Issue>,
    next_issue: u64,
    invoices: BTreeMap<String, Invoice>,
    next_invoice: u64,
    users: BTreeMap<String, User>,
    /// Counter behind generated API keys, so keys are unique without a RNG.
    key_serial: u64,
    audit: Vec<String>,
    changes: Vec<Change>,
}

/// Where the resource URIs of workspace files and of issues start.
pub(super) const FILES_URI: &str = "demo://files/";
pub(super) const ISSUES_URI: &str = "demo://issues/";

/// The URI under which a workspace file is offered as a resource.
pub(super) fn file_uri(path: &str) -> String {
    format!("{FILES_URI}{path}")
}

/// The URI under which an issue is offered as a resource.
fn issue_uri(id: u64) -> String {
    format!("{ISSUES_URI}{id}")
}

/// A tool's arguments with typed, error-reporting accessors.
pub(super) struct Args<'a>(pub(super) &'a JsonObject);

impl<'a> Args<'a> {
    pub(super) fn opt_str(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(ToolError::argument(name, ArgProblem::NotString)),
        }
    }

    pub(super) fn str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.opt_str(name)?
            .ok_or_else(|| ToolError::argument(name, ArgProblem::Required))
    }

    pub(super) fn opt_int(&self, name: &str) -> Result<Option<i64>, ToolError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| ToolError::argument(name, ArgProblem::NotInteger)),
        }
    }

    pub(super) fn int(&self, name: &str) -> Result<i64, ToolError> {
        self.opt_int(name)?
            .ok_or_else(|| ToolError::argument(name, ArgProblem::Required))
    }

    pub(super) fn opt_bool(&self, name: &str) -> Result<Option<bool>, ToolError> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(ToolError::argument(name, ArgProblem::NotBool)),
        }
    }

    fn opt_list(&self, name: &str) -> Result<Option<Vec<String>>, ToolError> {
        let wrong = || ToolError::argument(name, ArgProblem::NotStringList);
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(wrong),
            Some(_) => Err(wrong()),
        }
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

impl Workspace {
    /// The seed data every demo server starts with.
    pub(super) fn new() -> Self {
        let files = [
            (
                "README.md",
                "# Demo project\n\nA tiny workspace served by sieve-demo.\n",
            ),
            (
                "docs/intro.md",
                "Welcome to the demo.\nIt has files, issues and invoices.\n",
            ),
            (
                "docs/billing.md",
                "Invoices start as drafts, are sent, then paid.\n",
            ),
            (
                "src/main.rs",
                "fn main() {\n    println!(\"hello from the demo\");\n}\n",
            ),
            (
                "src/lib.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
            ),
        ];
        let mut workspace = Self {
            files: files
                .iter()
                .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
                .collect(),
            issues: BTreeMap::new(),
            next_issue: 1,
            invoices: BTreeMap::new(),
            next_invoice: 1001,
            users: BTreeMap::new(),
            key_serial: 0,
            audit: Vec::new(),
            changes: Vec::new(),
        };
        for (title, labels, state) in [
            ("Login page is slow", &["bug", "performance"][..], "open"),
            ("Add dark mode", &["feature"][..], "open"),
            ("Typo in the billing docs", &["docs"][..], "closed"),
        ] {
            let id = workspace.add_issue(title, "", labels, "normal");
            workspace.issues.get_mut(&id).expect("just added").state = state;
        }
        for (customer, cents, status) in [
            ("Acme", 120_000, "paid"),
            ("Globex", 45_000, "open"),
            ("Initech", 9_900, "draft"),
        ] {
            let id = workspace.add_invoice(customer, cents, "EUR", "Consulting");
            workspace.invoices.get_mut(&id).expect("just added").status = status;
        }
        for (name, role) in [("alice", "admin"), ("bob", "member"), ("carol", "viewer")] {
            workspace.add_user(name, &format!("{name}@example.test"), role);
        }
        workspace.audit.clear();
        workspace
    }

    /// Take the change events produced since the last call.
    pub(super) fn drain_changes(&mut self) -> Vec<Change> {
        std::mem::take(&mut self.changes)
    }

    pub(super) fn file_paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub(super) fn file(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    pub(super) fn issue_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.issues.keys().copied()
    }

    pub(super) fn invoice_ids(&self) -> impl Iterator<Item = &str> {
        self.invoices.keys().map(String::as_str)
    }

    /// An issue as JSON, for resources, prompts and sampling.
    pub(super) fn issue_json(&self, id: u64) -> Option<Value> {
        self.issues.get(&id).map(|issue| json!(issue))
    }

    pub(super) fn invoice_json(&self, id: &str) -> Option<Value> {
        self.invoices.get(id).map(|invoice| json!(invoice))
    }

    pub(super) fn stats(&self) -> Value {
        json!({
            "files": self.files.len(),
            "issues": self.issues.len(),
            "open_issues": self.issues.values().filter(|i| i.state == "open").count(),
            "invoices": self.invoices.len(),
            "users": self.users.len(),
        })
    }

    /// Remove every closed issue; returns how many went.
    pub(super) fn purge_closed_issues(&mut self) -> usize {
        let before = self.issues.len();
        self.issues.retain(|_, issue| issue.state != "closed");
        let purged = before - self.issues.len();
        self.record(format!("purged {purged} closed issues"));
        purged
    }

    /// Run one plain (non-interactive) tool. `Err` is a message for the user.
    pub(super) fn call(&mut self, name: &str, args: &Args<'_>) -> Result<Value, ToolError> {
        match name {
            "list_files" => {
                let prefix = args.opt_str("prefix")?.unwrap_or("");
                let paths: Vec<&str> = self
                    .file_paths()
                    .filter(|p| p.starts_with(prefix))
                    .collect();
                Ok(json!({ "files": paths }))
            }
            "read_file" => {
                let path = args.str("path")?;
                let text = self.file(path).ok_or_else(|| no_file(path))?;
                Ok(json!({ "path": path, "content": text }))
            }
            "write_file" => {
                let (path, content) = (args.str("path")?, args.str("content")?);
                self.put_file(path, content.to_owned());
                Ok(json!({ "path": path, "bytes": content.len() }))
            }
            "append_file" => {
                let (path, content) = (args.str("path")?, args.str("content")?);
                let mut text = self.files.get(path).cloned().unwrap_or_default();
                text.push_str(content);
                let bytes = text.len();
                self.put_file(path, text);
                Ok(json!({ "path": path, "bytes": bytes }))
            }
            "delete_file" => {
                let path = args.str("path")?;
                self.files.remove(path).ok_or_else(|| no_file(path))?;
                self.changes.push(Change::ResourceList);
                self.record(format!("deleted file {path}"));
                Ok(json!({ "deleted": path }))
            }
            "move_file" => {
                let (from, to) = (args.str("from")?, args.str("to")?);
                if self.files.contains_key(to) {
                    return Err(ToolError::FileExists {
                        path: to.to_owned(),
                    });
                }
                let text = self.files.remove(from).ok_or_else(|| no_file(from))?;
                self.files.insert(to.to_owned(), text);
                self.changes.push(Change::ResourceList);
                self.record(format!("moved file {from} to {to}"));
                Ok(json!({ "from": from, "to": to }))
            }
            "file_info" => {
                let path = args.str("path")?;
                let text = self.file(path).ok_or_else(|| no_file(path))?;
                Ok(json!({ "path": path, "bytes": text.len(), "lines": text.lines().count() }))
            }
            "grep_files" => {
                let query = args.str("query")?.to_lowercase();
                let limit = limit(args, 20)?;
                let matches: Vec<Value> = self
                    .files
                    .iter()
                    .flat_map(|(path, text)| {
                        text.lines()
                            .enumerate()
                            .filter(|(_, line)| line.to_lowercase().contains(&query))
                            .map(
                                move |(n, line)| json!({"path": path, "line": n + 1, "text": line}),
                            )
                    })
                    .take(limit)
                    .collect();
                Ok(json!({ "matches": matches }))
            }
            "list_issues" => {
                let state = args.opt_str("state")?;
                let label = args.opt_str("label")?;
                let issues: Vec<Value> = self
                    .issues
                    .values()
                    .filter(|i| state.is_none_or(|s| i.state == s))
                    .filter(|i| label.is_none_or(|l| i.labels.iter().any(|x| x == l)))
                    .map(|i| json!({"id": i.id, "title": i.title, "state": i.state, "labels": i.labels}))
                    .collect();
                Ok(json!({ "issues": issues }))
            }
            "get_issue" => {
                let id = issue_id(args)?;
                self.issue_json(id).ok_or_else(|| no_issue(id))
            }
            "create_issue" => {
                let labels = args.opt_list("labels")?.unwrap_or_default();
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                let id = self.add_issue(
                    args.str("title")?,
                    args.opt_str("body")?.unwrap_or(""),
                    &labels,
                    args.opt_str("priority")?.unwrap_or("normal"),
                );
                self.changes.push(Change::Resource(issue_uri(id)));
                Ok(json!({ "id": id }))
            }
            "update_issue" => {
                let id = issue_id(args)?;
                let issue = self.issues.get_mut(&id).ok_or_else(|| no_issue(id))?;
                if let Some(title) = args.opt_str("title")? {
                    issue.title = title.to_owned();
                }
                if let Some(body) = args.opt_str("body")? {
                    issue.body = body.to_owned();
                }
                if let Some(labels) = args.opt_list("labels")? {
                    issue.labels = labels;
                }
                if let Some(priority) = args.opt_str("priority")? {
                    issue.priority = priority.to_owned();
                }
                self.issue_changed(id, "updated")
            }
            "close_issue" => self.set_issue_state(issue_id(args)?, "closed"),
            "reopen_issue" => self.set_issue_state(issue_id(args)?, "open"),
            "comment_issue" => {
                let id = issue_id(args)?;
                let text = args.str("text")?;
                let issue = self.issues.get_mut(&id).ok_or_else(|| no_issue(id))?;
                issue.comments.push(text.to_owned());
                self.issue_changed(id, "commented on")
            }
            "assign_issue" => {
                let id = issue_id(args)?;
                let user = args.opt_str("user")?;
                if let Some(user) = user {
                    self.users.get(user).ok_or_else(|| no_user(user))?;
                }
                let issue = self.issues.get_mut(&id).ok_or_else(|| no_issue(id))?;
                issue.assignee = user.map(str::to_owned);
                self.issue_changed(id, "assigned")
            }
            "delete_issue" => {
                let id = issue_id(args)?;
                self.issues.remove(&id).ok_or_else(|| no_issue(id))?;
                self.record(format!("deleted issue #{id}"));
                Ok(json!({ "deleted": id }))
            }
            "list_invoices" => {
                let status = args.opt_str("status")?;
                let customer = args.opt_str("customer")?;
                let invoices: Vec<&Invoice> = self
                    .invoices
                    .values()
                    .filter(|i| status.is_none_or(|s| i.status == s))
                    .filter(|i| customer.is_none_or(|c| i.customer.eq_ignore_ascii_case(c)))
                    .collect();
                Ok(json!({ "invoices": invoices }))
            }
            "get_invoice" => {
                let id = args.str("id")?;
                self.invoice_json(id).ok_or_else(|| no_invoice(id))
            }
            "create_invoice" => {
                let amount = args.int("amount_cents")?;
                if amount <= 0 {
                    return Err(ToolError::NoAmount);
                }
                let id = self.add_invoice(
                    args.str("customer")?,
                    amount,
                    args.opt_str("currency")?.unwrap_or("EUR"),
                    args.opt_str("memo")?.unwrap_or(""),
                );
                Ok(json!({ "id": id, "status": "draft" }))
            }
            "send_invoice" => self.move_invoice(args.str("id")?, &["draft"], "open"),
            "pay_invoice" => self.move_invoice(args.str("id")?, &["open"], "paid"),
            "refund_invoice" => self.move_invoice(args.str("id")?, &["paid"], "refunded"),
            "void_invoice" => self.move_invoice(args.str("id")?, &["draft", "open"], "void"),
            "billing_summary" => {
                let mut totals: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
                for invoice in self.invoices.values() {
                    *totals
                        .entry(invoice.status.to_owned())
                        .or_default()
                        .entry(invoice.currency.clone())
                        .or_default() += invoice.amount_cents;
                }
                Ok(json!({ "totals_cents": totals }))
            }
            "list_users" => {
                let role = args.opt_str("role")?;
                let users: Vec<Value> = self
                    .users
                    .values()
                    .filter(|u| role.is_none_or(|r| u.role == r))
                    .map(|u| json!({"name": u.name, "email": u.email, "role": u.role, "active": u.active}))
                    .collect();
                Ok(json!({ "users": users }))
            }
            "create_user" => {
                let name = args.str("name")?;
                if self.users.contains_key(name) {
                    return Err(ToolError::UserExists {
                        name: name.to_owned(),
                    });
                }
                let email = args.str("email")?;
                if !email.contains('@') {
                    return Err(ToolError::NotEmail {
                        email: email.to_owned(),
                    });
                }
                let role = args.opt_str("role")?.unwrap_or("member");
                self.add_user(name, email, role);
                Ok(json!({ "name": name, "role": role }))
            }
            "set_user_role" => {
                let (name, role) = (args.str("name")?, args.str("role")?);
                let user = self.users.get_mut(name).ok_or_else(|| no_user(name))?;
                user.role = role.to_owned();
                self.record(format!("set role of {name} to {role}"));
                Ok(json!({ "name": name, "role": role }))
            }
            "disable_user" => {
                let name = args.str("name")?;
                let user = self.users.get_mut(name).ok_or_else(|| no_user(name))?;
                user.active = false;
                self.record(format!("disabled user {name}"));
                Ok(json!({ "name": name, "active": false }))
            }
            "delete_user" => {
                let name = args.str("name")?;
                self.users.remove(name).ok_or_else(|| no_user(name))?;
                for issue in self.issues.values_mut() {
                    if issue.assignee.as_deref() == Some(name) {
                        issue.assignee = None;
                    }
                }
                self.record(format!("deleted user {name}"));
                Ok(json!({ "deleted": name }))
            }
            "rotate_api_key" => {
                let name = args.str("name")?;
                let key = self.new_api_key();
                let user = self.users.get_mut(name).ok_or_else(|| no_user(name))?;
                user.api_key = key;
                // Only the tail is shown: the demo still models a secret.
                let tail = user.api_key[user.api_key.len() - 4..].to_owned();
                self.record(format!("rotated API key of {name}"));
                Ok(json!({ "name": name, "key_ends_with": tail }))
            }
            "audit_log" => {
                let limit = limit(args, 20)?;
                let entries: Vec<&String> = self.audit.iter().rev().take(limit).collect();
                Ok(json!({ "entries": entries }))
            }
            "search" => self.search(args),
            "echo" => Ok(json!({ "text": args.str("text")? })),
            "experimental_word_count" => {
                let counts: BTreeMap<&str, usize> = self
                    .files
                    .iter()
                    .map(|(path, text)| (path.as_str(), text.split_whitespace().count()))
                    .collect();
                Ok(json!({ "words": counts }))
            }
            "experimental_bulk_label" => {
                let label = args.str("label")?;
                let mut labelled = Vec::new();
                for issue in self.issues.values_mut().filter(|i| i.state == "open") {
                    if !issue.labels.iter().any(|l| l == label) {
                        issue.labels.push(label.to_owned());
                        labelled.push(issue.id);
                    }
                }
                self.record(format!("labelled {} issues with {label}", labelled.len()));
                Ok(json!({ "labelled": labelled }))
            }
            other => Err(ToolError::NotPlain {
                name: other.to_owned(),
            }),
        }
    }

    fn search(&self, args: &Args<'_>) -> Result<Value, ToolError> {
        let query = args.str("query")?.to_lowercase();
        let kinds = args.opt_list("kinds")?;
        let wanted = |kind: &str| kinds.as_ref().is_none_or(|k| k.iter().any(|x| x == kind));
        let hit = |text: &str| text.to_lowercase().contains(&query);
        let mut hits = Vec::new();
        if wanted("file") {
            hits.extend(
                self.files
                    .iter()
                    .filter(|(path, text)| hit(path) || hit(text))
                    .map(|(path, _)| json!({"kind": "file", "ref": path})),
            );
        }
        if wanted("issue") {
            hits.extend(
                self.issues
                    .values()
                    .filter(|i| hit(&i.title) || hit(&i.body) || i.labels.iter().any(|l| hit(l)))
                    .map(|i| json!({"kind": "issue", "ref": i.id, "title": i.title})),
            );
        }
        if wanted("invoice") {
            hits.extend(
                self.invoices
                    .values()
                    .filter(|i| hit(&i.id) || hit(&i.customer) || hit(&i.memo))
                    .map(|i| json!({"kind": "invoice", "ref": i.id})),
            );
        }
        if wanted("user") {
            hits.extend(
                self.users
                    .values()
                    .filter(|u| hit(&u.name) || hit(&u.email))
                    .map(|u| json!({"kind": "user", "ref": u.name})),
            );
        }
        Ok(json!({ "hits": hits }))
    }

    fn put_file(&mut self, path: &str, text: String) {
        if self.files.insert(path.to_owned(), text).is_none() {
            self.changes.push(Change::ResourceList);
        }
        self.changes.push(Change::Resource(file_uri(path)));
        self.record(format!("wrote file {path}"));
    }

    fn add_issue(&mut self, title: &str, body: &str, labels: &[&str], priority: &str) -> u64 {
        let id = self.next_issue;
        self.next_issue += 1;
        self.issues.insert(
            id,
            Issue {
                id,
                title: title.to_owned(),
                body: body.to_owned(),
                state: "open",
                labels: labels.iter().map(|l| (*l).to_owned()).collect(),
                priority: priority.to_owned(),
                assignee: None,
                comments: Vec::new(),
            },
        );
        self.record(format!("created issue #{id}"));
        id
    }

    fn set_issue_state(&mut self, id: u64, state: &'static str) -> Result<Value, ToolError> {
        let issue = self.issues.get_mut(&id).ok_or_else(|| no_issue(id))?;
        issue.state = state;
        self.issue_changed(
            id,
            if state == "open" {
                "reopened"
            } else {
                "closed"
            },
        )
    }

    fn issue_changed(&mut self, id: u64, what: &str) -> Result<Value, ToolError> {
        self.record(format!("{what} issue #{id}"));
        self.changes.push(Change::Resource(issue_uri(id)));
        self.issue_json(id).ok_or_else(|| no_issue(id))
    }

    fn add_invoice(&mut self, customer: &str, cents: i64, currency: &str, memo: &str) -> String {
        let id = format!("INV-{}", self.next_invoice);
        self.next_invoice += 1;
        self.invoices.insert(
            id.clone(),
            Invoice {
                id: id.clone(),
                customer: customer.to_owned(),
                amount_cents: cents,
                currency: currency.to_owned(),
                memo: memo.to_owned(),
                status: "draft",
            },
        );
        self.record(format!("created invoice {id}"));
        id
    }

    fn move_invoice(
        &mut self,
        id: &str,
        from: &[&'static str],
        to: &'static str,
    ) -> Result<Value, ToolError> {
        let invoice = self.invoices.get_mut(id).ok_or_else(|| no_invoice(id))?;
        if !from.contains(&invoice.status) {
            return Err(ToolError::InvoiceStatus {
                id: id.to_owned(),
                status: invoice.status,
                from: from.to_vec(),
                to,
            });
        }
        invoice.status = to;
        self.record(format!("invoice {id} is now {to}"));
        self.invoice_json(id).ok_or_else(|| no_invoice(id))
    }

    fn add_user(&mut self, name: &str, email: &str, role: &str) {
        let api_key = self.new_api_key();
        self.users.insert(
            name.to_owned(),
            User {
                name: name.to_owned(),
                email: email.to_owned(),
                role: role.to_owned(),
                active: true,
                api_key,
            },
        );
        self.record(format!("created user {name}"));
    }

    fn new_api_key(&mut self) -> String {
        self.key_serial += 1;
        format!("demo-key-{:08x}", self.key_serial.wrapping_mul(0x9e37_79b9))
    }

    fn record(&mut self, entry: String) {
        self.audit.push(entry);
    }
}

fn issue_id(args: &Args<'_>) -> Result<u64, ToolError> {
    u64::try_from(args.int("id")?).map_err(|_| ToolError::NegativeIssue)
}

fn limit(args: &Args<'_>, default: usize) -> Result<usize, ToolError> {
    Ok(args
        .opt_int("limit")?
        .map_or(default, |n| usize::try_from(n).unwrap_or(0)))
}

fn no_file(path: &str) -> ToolError {
    ToolError::NoFile {
        path: path.to_owned(),
    }
}

fn no_issue(id: u64) -> ToolError {
    ToolError::NoIssue { id }
}

fn no_invoice(id: &str) -> ToolError {
    ToolError::NoInvoice { id: id.to_owned() }
}

fn no_user(name: &str) -> ToolError {
    ToolError::NoUser {
        name: name.to_owned(),
    }
}
