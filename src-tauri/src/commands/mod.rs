//! The Tauri commands: each takes the [`AppState`](crate::AppState), calls
//! one function of `sieve_api` and returns its result; an error
//! reaches the page as `{code, message, field?}`. One file per domain.

pub mod app;
pub mod audit;
pub mod hosts;
pub mod labels;
pub mod profiles;
pub mod quarantine;
pub mod registry;
pub mod servers;
pub mod tasks;
pub mod tools;

use sieve_api::ApiError;

/// What every command returns.
pub type Result<T> = std::result::Result<T, ApiError>;

/// Every command, for `invoke_handler`.
pub fn handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static
{
    tauri::generate_handler![
        app::app_info,
        app::start_notices,
        app::page_error,
        app::settings_show,
        app::settings_set_close_to_tray,
        app::settings_set_quarantine,
        servers::servers_list,
        servers::server_add,
        servers::server_remove,
        servers::server_set_enabled,
        servers::servers_import_preview,
        servers::servers_import,
        registry::registry_search,
        registry::registry_show,
        registry::registry_prepare,
        registry::registry_add,
        registry::servers_newer,
        servers::server_login,
        tools::catalog_rows,
        tools::token_report,
        tools::tool_set_override,
        tasks::tool_try,
        tools::concern_definitions,
        labels::labels_view,
        labels::label_edit,
        labels::labels_set_derive_groups,
        profiles::profiles_list,
        profiles::profile_show,
        profiles::profile_create,
        profiles::profile_rename,
        profiles::profile_delete,
        profiles::profile_make_active,
        profiles::profile_edit,
        profiles::pattern_check,
        quarantine::quarantine_list,
        quarantine::quarantine_approve,
        quarantine::quarantine_keep_hidden,
        tasks::tasks_list,
        tasks::task_show,
        tasks::task_retry,
        tasks::task_cancel,
        audit::audit_list,
        hosts::host_snippet,
        hosts::host_write,
        hosts::hosts_list,
        hosts::host_route,
        hosts::hosts_route_all,
        hosts::host_unroute,
    ]
}
