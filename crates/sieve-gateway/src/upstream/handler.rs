//! Our side of one upstream connection, the rmcp `ClientHandler`: list
//! changes become refreshes, task states go to the pool's sink, and
//! progress, logs, resource updates and server-to-client requests
//! (sampling, elicitation, roots) go to the hosts.

use super::{ListKind, TaskStatusSink};
use crate::hosts::Hosts;
use crate::tap::typed_message;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientResult, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
    ResourceUpdatedNotificationParam, ServerRequest,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};
use sieve_core::Roots;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Our side of one upstream connection: list changes refresh the listing;
/// progress, logs, resource updates and server-to-client requests go to the
/// hosts.
#[derive(Clone)]
pub(super) struct UpstreamHandler {
    pub(super) server: String,
    pub(super) hosts: Arc<Hosts>,
    /// Where list changes go: the supervisor re-lists that kind.
    pub(super) refresh: mpsc::UnboundedSender<ListKind>,
    pub(super) on_task_status: TaskStatusSink,
    /// What the server is told when it asks for roots.
    pub(super) roots: Roots,
}

impl UpstreamHandler {
    async fn ask_host(&self, method: &str, params: Value) -> Result<ClientResult, ErrorData> {
        let request: ServerRequest = typed_message(method, params).map_err(|e| {
            ErrorData::internal_error(format!("cannot forward {method}: {e}"), None)
        })?;
        self.hosts.request(&self.server, request).await
    }
}

fn unexpected(method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("the host answered {method} with something else"),
        None,
    )
}

impl ClientHandler for UpstreamHandler {
    fn get_info(&self) -> ClientConfig {
        // Tasks too: the proxy records them and relays or waits for them.
        let capabilities = ClientCapabilities::builder()
            .enable_sampling()
            .enable_elicitation()
            .enable_roots()
            .enable_roots_list_changed()
            .enable_tasks()
            .build();
        ClientConfig::new(
            capabilities,
            Implementation::new("mcp-sieve", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.refresh.send(ListKind::Resources);
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        // 2025-11-25 servers announce task states on their own method.
        if notification.method == "notifications/tasks/status"
            && let Some(params) = &notification.params
        {
            (self.on_task_status)(&self.server, params);
        }
    }

    async fn on_task_status(
        &self,
        params: rmcp::model::TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Ok(task) = serde_json::to_value(&params) {
            (self.on_task_status)(&self.server, &task);
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.progress(&self.server, params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.logging(&self.server, params);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.hosts.resource_updated(params);
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let params = serde_json::to_value(params).unwrap_or_default();
        match self.ask_host("sampling/createMessage", params).await? {
            ClientResult::CreateMessageResult(result) => Ok(*result),
            _ => Err(unexpected("sampling/createMessage")),
        }
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(request).unwrap_or_default();
        match self.ask_host("elicitation/create", params).await? {
            ClientResult::ElicitResult(result) => Ok(result),
            _ => Err(unexpected("elicitation/create")),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let listed = |roots: Vec<sieve_core::Root>| {
            ListRootsResult::new(
                roots
                    .into_iter()
                    .map(|root| {
                        let mut answer = rmcp::model::Root::new(root.uri);
                        answer.name = root.name;
                        answer
                    })
                    .collect(),
            )
        };
        match &self.roots {
            // The configured answer, whoever is connected.
            Roots::Listed(_) => Ok(listed(self.roots.listed())),
            Roots::Host => match self.ask_host("roots/list", json!({})).await {
                Ok(ClientResult::ListRootsResult(result)) => Ok(result),
                Ok(_) => Err(unexpected("roots/list")),
                // No host that sees this server is there to ask: no roots,
                // rather than an error a server might fall back from.
                Err(error) if error.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
                    Ok(listed(Vec::new()))
                }
                Err(error) => Err(error),
            },
        }
    }
}
