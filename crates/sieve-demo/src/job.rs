//! `run_job`, the task-capable tool: it waits, then succeeds or fails as
//! asked. A client that supports tasks gets a task to poll; any other
//! client gets the result when the job is done.

use std::time::Duration;

use rmcp::{
    ErrorData as McpError, RoleServer,
    model::{CallToolResponse, CallToolResult, CreateTaskResult},
    service::RequestContext,
    task_manager::{TaskExit, TaskOptions},
};
use serde_json::json;

use crate::{DemoServer, text_result, tool_error::ToolError, workspace::Args};

/// The parsed arguments of `run_job`.
struct Job {
    duration: Duration,
    fail: bool,
    label: String,
    as_task: bool,
}

impl Job {
    fn new(args: &Args<'_>, context: &RequestContext<RoleServer>) -> Result<Job, ToolError> {
        let duration = Duration::from_millis(
            args.opt_int("duration_ms")?
                .unwrap_or(1000)
                .max(0)
                .unsigned_abs(),
        );
        let fail = args.opt_str("outcome")?.unwrap_or("success") == "failure";
        let label = args.opt_str("label")?.unwrap_or("job").to_owned();
        let as_task = context
            .client_capabilities()
            .is_some_and(|caps| caps.supports_tasks());
        Ok(Job {
            duration,
            fail,
            label,
            as_task,
        })
    }

    async fn run(&self) -> Result<CallToolResult, McpError> {
        tokio::time::sleep(self.duration).await;
        if self.fail {
            Err(McpError::internal_error(
                format!("{} failed, as it was asked to", self.label),
                None,
            ))
        } else {
            Ok(CallToolResult::structured(json!({
                "label": self.label,
                "outcome": "success",
                "duration_ms": self.duration.as_millis() as u64,
            })))
        }
    }
}

impl DemoServer {
    /// `tools/call` of `run_job`: a task for a client that supports them,
    /// else the result once the job is done.
    pub(crate) async fn run_job(
        &self,
        args: &Args<'_>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let job = match Job::new(args, context) {
            Ok(job) => job,
            Err(e) => return text_result(&e, true),
        };
        if !job.as_task {
            return match job.run().await {
                Ok(result) => result.into(),
                Err(error) => text_result(&error.message, true),
            };
        }
        let options = TaskOptions::new()
            .with_poll_interval_ms(100)
            .with_status_message(format!("{} is running", job.label));
        let task = self.shared.tasks.spawn(options, move |task| {
            Box::pin(async move {
                tokio::select! {
                    () = task.cancelled() => Err(TaskExit::Cancelled),
                    result = job.run() => result.map_err(TaskExit::Error),
                }
            })
        });
        CallToolResponse::Task(CreateTaskResult::new(task))
    }
}
