//! Hosts' task requests, of both generations: 2026-07-28 `tasks/get`,
//! `tasks/cancel` and `tasks/update`; 2025-11-25 task-augmented calls and
//! `tasks/get`, `tasks/result`, `tasks/cancel` (told apart by
//! `server::dispatch`); and the
//! proxy's `tasks/list` and `tasks/retry`. A host sees only the tasks of
//! tools its profile shows; what a task is and does is [`crate::tasks`]'.

use super::methods::not_supported;
use super::{SieveServer, to_params};
use crate::link::HostRequest;
use crate::tasks::{Call, Started, wire};
use rmcp::ErrorData;
use rmcp::model::{
    CancelTaskParams, CustomResult, GetTaskParams, GetTaskResult, ServerResult, UpdateTaskParams,
};
use serde_json::{Value, json};
use sieve_core::tasks::{TaskQuery, TaskRecord};

impl SieveServer {
    /// Ledger entry `id`, if this caller's profile shows its tool.
    async fn visible_task(&self, id: &str, context: &HostRequest) -> Result<TaskRecord, ErrorData> {
        self.started().await;
        let view = self.view(context, false)?;
        Ok(self.engine.tasks().find(id, &view.viewer())?)
    }

    pub(super) async fn handle_get_task(
        &self,
        request: GetTaskParams,
        context: HostRequest,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        Ok(wire::detailed(&self.engine.tasks().current(record).await))
    }

    pub(super) async fn handle_cancel_task(
        &self,
        request: CancelTaskParams,
        context: HostRequest,
    ) -> Result<(), ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        Ok(self.engine.tasks().cancel(&record).await?)
    }

    /// `tasks/update` goes to the task's server under its own id.
    pub(super) async fn handle_update_task(
        &self,
        request: UpdateTaskParams,
        context: HostRequest,
    ) -> Result<(), ErrorData> {
        let record = self.visible_task(&request.task_id, &context).await?;
        let params = crate::tasks::for_upstream(&record, to_params(&request))?;
        self.forward(&record.server, "tasks/update", &params, &context)
            .await?;
        Ok(())
    }

    /// `tasks/list`: bad params are refused before anything is waited for.
    pub(super) async fn tasks_list(
        &self,
        params: &Value,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let query = TaskQuery::from_params(params).map_err(|e| {
            ErrorData::invalid_params(e.to_string(), Some(json!({"field": e.field})))
        })?;
        self.started().await;
        let view = self.view(context, false)?;
        Ok(CustomResult(
            self.engine.tasks().list(&query, &view.viewer())?,
        ))
    }

    /// `tasks/retry`: `{taskId, force?}`.
    pub(super) async fn tasks_retry(
        &self,
        params: &Value,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let id = params
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ErrorData::invalid_params("params.taskId is required: the task to run again", None)
            })?;
        let force = params
            .get("force")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        self.started().await;
        let view = self.view(context, false)?;
        let (record, answer) = self
            .engine
            .retry(id, force, &view.profile, view.owner.as_deref())
            .await?;
        Ok(CustomResult(wire::retried(
            &record,
            answer.map_err(ErrorData::from),
        )))
    }

    /// A 2025-11-25 task request (`method` as the host named it), answered
    /// in that revision's shapes.
    pub(super) async fn legacy_task_request(
        &self,
        method: &str,
        params: Value,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let task_id = || {
            params
                .get("taskId")
                .and_then(Value::as_str)
                .map(String::from)
                .ok_or_else(|| ErrorData::invalid_params("params.taskId is required", None))
        };
        let tasks = self.engine.tasks();
        let answer = match method {
            "tools/call" => return self.legacy_call(params.clone(), context).await,
            "tasks/get" => {
                let record = self.visible_task(&task_id()?, context).await?;
                tasks.legacy_get(record).await
            }
            "tasks/result" => {
                let record = self.visible_task(&task_id()?, context).await?;
                tasks.legacy_result(record, &context.ct).await?
            }
            "tasks/cancel" => {
                let record = self.visible_task(&task_id()?, context).await?;
                tasks.legacy_cancel(record).await?
            }
            other => return Err(not_supported(other)),
        };
        Ok(CustomResult(answer))
    }

    /// A 2025-11-25 task-augmented `tools/call`: the upstream's own task
    /// (either generation) under a Sieve id, as `{"task": {...}}`; a tool
    /// that cannot run as a task answers with its plain result.
    async fn legacy_call(
        &self,
        params: Value,
        context: &HostRequest,
    ) -> Result<CustomResult, ErrorData> {
        let view = self.view(context, false)?;
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let tool = self.callable_tool(&view, name)?;
        let upstream = json!({"name": tool.name, "arguments": params.get("arguments").cloned().unwrap_or(json!({}))});
        let call = Call {
            server: &tool.server,
            tool: &tool.exposed_name,
            params: crate::sent::Params::Json(&upstream),
            profile: &view.profile.name,
            owner: view.owner.as_deref(),
            local: Call::is_local(&view.config, &tool.server),
        };
        let tasks = self.engine.tasks();
        if tasks.runs_as_legacy_task(call.server, &tool.definition, true) {
            let task = params.get("task").cloned().unwrap_or(json!({}));
            return Ok(CustomResult(
                match tasks.start_legacy(&call, Some(task)).await? {
                    Started::Task(record) => tasks.answer_legacy(&record, &context.link),
                    Started::Done(result) => result,
                },
            ));
        }
        let running = tasks.call_started(&call);
        let outcome = self
            .forward(call.server, "tools/call", &upstream, context)
            .await;
        tasks
            .call_ended(running, &call, &outcome, context.ct.is_cancelled(), || None)
            .await;
        match outcome? {
            ServerResult::CreateTaskResult(created) => {
                let record = tasks.record_task(&call, &created.task)?;
                Ok(CustomResult(tasks.answer_legacy(&record, &context.link)))
            }
            other => Ok(CustomResult(
                serde_json::to_value(other).unwrap_or_default(),
            )),
        }
    }
}
