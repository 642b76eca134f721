//! What the proxy says of itself (`initialize`, `server/discover`, and
//! rmcp's own checks, which ask for it on every 2026-07-28 request): built
//! once per config in force, since only the config's concerns change it.

use crate::sync::Locked;
use rmcp::model::{Implementation, JsonObject, ServerCapabilities, ServerConfig};
use serde_json::{Value, json};
use sieve_core::Config;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};

/// The last config the info was built for, and the info. A `Weak` keeps
/// the config's allocation, so no later config can take its address.
static BUILT: Mutex<Option<(Weak<Config>, ServerConfig)>> = Mutex::new(None);

/// The server info under `config`.
pub(super) fn server_info(config: &Arc<Config>) -> ServerConfig {
    let mut built = BUILT.locked();
    if let Some((for_config, info)) = built.as_ref()
        && std::ptr::eq(for_config.as_ptr(), Arc::as_ptr(config))
    {
        return info.clone();
    }
    let info = build(config);
    *built = Some((Arc::downgrade(config), info.clone()));
    info
}

fn build(config: &Config) -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_experimental_with(experimental(config))
        .enable_tools()
        .enable_tool_list_changed()
        .enable_prompts()
        .enable_prompts_list_changed()
        .enable_resources()
        .enable_resources_list_changed()
        .enable_resources_subscribe()
        .enable_completions()
        .enable_logging()
        .enable_tasks()
        .build();
    ServerConfig::new(capabilities)
        .with_server_info(Implementation::new("mcp-sieve", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "MCP Sieve: the tools, resources and prompts of several MCP servers, \
             named <server>__<name>, filtered by the user's profile.",
        )
}

fn experimental(config: &Config) -> BTreeMap<String, JsonObject> {
    let object = |value: Value| match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    };
    BTreeMap::from([
        (
            "filtering".to_string(),
            object(json!({
                "groups": {"listChanged": true},
                "tags": {"listChanged": true},
                // `filter.tagExpr`: and, or, not and parentheses.
                "tagExpr": true,
            })),
        ),
        (
            "concerns".to_string(),
            object(json!({"definitions": config.concerns_in_force(), "update": true})),
        ),
        (
            "tasksListFilter".to_string(),
            object(sieve_core::tasks::supported_filters()),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_info_follows_the_config_in_force() {
        let concerns = |info: &ServerConfig| {
            info.capabilities
                .experimental
                .as_ref()
                .expect("experimental")["concerns"]["definitions"]
                .clone()
        };
        let builtin = Arc::new(Config::default());
        let first = server_info(&builtin);
        assert_eq!(
            server_info(&builtin),
            first,
            "the same config, the same info"
        );
        let declared: Config = serde_json::from_value(json!({
            "concerns": [{"name": "region", "values": ["eu", "us"]}]
        }))
        .expect("a config with a concern");
        let declared = Arc::new(declared);
        let second = server_info(&declared);
        assert_ne!(
            concerns(&second),
            concerns(&first),
            "a new config's concerns are in its info"
        );
        assert_eq!(
            concerns(&server_info(&builtin)),
            concerns(&first),
            "and the first config still gets its own"
        );
    }
}
