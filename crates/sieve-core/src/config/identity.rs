//! `settings.identity` (DESIGN §12): the team's identity provider, whose
//! access tokens the HTTP front accepts beside the static token, and how a
//! person's token chooses their profile.
//!
//! ```json
//! "identity": {
//!   "issuer": "https://login.example.com/realms/team",
//!   "audience": "https://sieve.example.com/mcp",
//!   "claim": "groups",
//!   "profiles": {"engineering": "eng", "support": "support"},
//!   "defaultProfile": "readonly"
//! }
//! ```
//!
//! The claim is `sub` unless told otherwise. A claim holding a list (a
//! group claim) chooses by the first entry of `profiles`, as written, whose
//! value the list holds: the order of groups in a token is the provider's,
//! the order of `profiles` is the team's.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The identity provider and the claim that chooses profiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Identity {
    /// The provider's issuer, exactly as its tokens' `iss` say it.
    pub issuer: String,
    /// This gateway as tokens' `aud` name it: the URL its people's hosts
    /// connect to, e.g. `https://sieve.example.com/mcp`.
    pub audience: String,
    /// The claim that chooses a person's profile: `sub`, or a group claim
    /// such as `groups` or `roles`.
    #[serde(default = "default_claim", skip_serializing_if = "is_default_claim")]
    pub claim: String,
    /// The claim's values and the profile each chooses, first match first.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub profiles: IndexMap<String, String>,
    /// The profile of a person whose claim `profiles` does not map;
    /// without it such a person is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_profile: Option<String>,
    /// Where the provider publishes its keys; found through its discovery
    /// document (`/.well-known/openid-configuration`) when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// Scopes every token must carry, published in the gateway's protected
    /// resource metadata.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

fn default_claim() -> String {
    "sub".into()
}

fn is_default_claim(claim: &str) -> bool {
    claim == "sub"
}

/// How a person's claim chose (or did not choose) a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileFor {
    /// The profile `profiles` maps the value to, or the default.
    Profile(String),
    /// The token carries no such claim, or one no entry maps and there is
    /// no default: the values it holds, for the refusal.
    Unmapped(Vec<String>),
}

impl Identity {
    /// The profile the claims of a verified token choose.
    pub fn profile_for(&self, claims: &serde_json::Map<String, Value>) -> ProfileFor {
        let values: Vec<String> = match claims.get(&self.claim) {
            Some(Value::String(one)) => vec![one.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        let mapped = self
            .profiles
            .iter()
            .find(|(value, _)| values.contains(value))
            .map(|(_, profile)| profile.clone());
        match mapped.or_else(|| self.default_profile.clone()) {
            Some(profile) => ProfileFor::Profile(profile),
            None => ProfileFor::Unmapped(values),
        }
    }

    /// What is wrong with these settings, as `(field, needle, expected)`
    /// for the config's error: the field under `settings.identity`, the
    /// text to point at, and what it should be.
    pub(super) fn problem(&self) -> Option<(String, String, String)> {
        let url_problem = |field: &str, url: &str| {
            (!is_provider_url(url)).then(|| {
                (
                    field.to_string(),
                    url.to_string(),
                    format!(
                        "{url:?} is not a URL MCP Sieve can trust a provider at: use https:// (http:// only for this machine)"
                    ),
                )
            })
        };
        if let Some(problem) = url_problem("issuer", &self.issuer) {
            return Some(problem);
        }
        if let Some(problem) = self
            .jwks_uri
            .as_deref()
            .and_then(|uri| url_problem("jwksUri", uri))
        {
            return Some(problem);
        }
        if self.audience.trim().is_empty() {
            return Some((
                "audience".into(),
                "audience".into(),
                "is empty; give the URL people's hosts connect to, as the provider writes it in a token's aud".into(),
            ));
        }
        if self.claim.trim().is_empty() {
            return Some((
                "claim".into(),
                "claim".into(),
                "is empty; write \"sub\" or the name of a group claim".into(),
            ));
        }
        let bad_profile = |name: &str| !crate::naming::is_valid_profile_name(name);
        if let Some((value, profile)) = self.profiles.iter().find(|(_, p)| bad_profile(p)) {
            return Some((
                format!("profiles.{value}"),
                profile.clone(),
                format!(
                    "{profile:?} cannot name a profile: use 1-64 of the characters A-Z a-z 0-9 _ -"
                ),
            ));
        }
        if let Some(profile) = self.default_profile.as_deref().filter(|p| bad_profile(p)) {
            return Some((
                "defaultProfile".into(),
                profile.to_string(),
                format!(
                    "{profile:?} cannot name a profile: use 1-64 of the characters A-Z a-z 0-9 _ -"
                ),
            ));
        }
        None
    }
}

/// `https://`, or `http://` to this machine (a provider run for tests or
/// beside the gateway).
fn is_provider_url(url: &str) -> bool {
    if let Some(rest) = url.strip_prefix("https://") {
        return !rest.is_empty();
    }
    url.strip_prefix("http://")
        .is_some_and(crate::naming::is_loopback_authority)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn identity(text: Value) -> Identity {
        serde_json::from_value(text).expect("identity parses")
    }

    fn claims(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().cloned().expect("object")
    }

    #[test]
    fn the_subject_chooses_unless_another_claim_is_named() {
        let by_sub = identity(json!({
            "issuer": "https://login.example.com",
            "audience": "https://sieve.example.com/mcp",
            "profiles": {"alice": "eng"}
        }));
        assert_eq!(by_sub.claim, "sub");
        assert_eq!(
            by_sub.profile_for(&claims(json!({"sub": "alice"}))),
            ProfileFor::Profile("eng".into())
        );
        assert_eq!(
            by_sub.profile_for(&claims(json!({"sub": "bob"}))),
            ProfileFor::Unmapped(vec!["bob".into()])
        );
        assert_eq!(
            by_sub.profile_for(&claims(json!({}))),
            ProfileFor::Unmapped(vec![])
        );
    }

    #[test]
    fn a_group_claim_chooses_by_the_order_of_profiles_then_the_default() {
        let by_group = identity(json!({
            "issuer": "https://login.example.com",
            "audience": "https://sieve.example.com/mcp",
            "claim": "groups",
            "profiles": {"support": "help", "engineering": "eng"},
            "defaultProfile": "readonly"
        }));
        let choose = |groups: Value| by_group.profile_for(&claims(json!({"groups": groups})));
        assert_eq!(
            choose(json!(["engineering", "support"])),
            ProfileFor::Profile("help".into()),
            "the first entry of profiles that the list holds"
        );
        assert_eq!(
            choose(json!(["engineering"])),
            ProfileFor::Profile("eng".into())
        );
        assert_eq!(
            choose(json!("engineering")),
            ProfileFor::Profile("eng".into())
        );
        assert_eq!(
            choose(json!(["sales"])),
            ProfileFor::Profile("readonly".into())
        );
    }

    #[test]
    fn written_back_in_its_shortest_form() {
        let short = identity(json!({
            "issuer": "https://login.example.com",
            "audience": "https://sieve.example.com/mcp"
        }));
        assert_eq!(
            serde_json::to_value(&short).unwrap(),
            json!({"issuer": "https://login.example.com", "audience": "https://sieve.example.com/mcp"})
        );
    }

    #[test]
    fn problems_name_the_field() {
        let base = json!({"issuer": "https://login.example.com", "audience": "https://sieve.example.com/mcp"});
        let with = |key: &str, value: Value| {
            let mut text = base.clone();
            text[key] = value;
            identity(text).problem().map(|(field, _, _)| field)
        };
        assert_eq!(identity(base.clone()).problem(), None);
        assert_eq!(
            with("issuer", json!("http://login.example.com")),
            Some("issuer".into())
        );
        assert_eq!(with("issuer", json!("http://127.0.0.1:9000")), None);
        assert_eq!(with("jwksUri", json!("ftp://keys")), Some("jwksUri".into()));
        assert_eq!(with("audience", json!(" ")), Some("audience".into()));
        assert_eq!(with("claim", json!("")), Some("claim".into()));
        assert_eq!(
            with("profiles", json!({"eng": "no spaces"})),
            Some("profiles.eng".into())
        );
        assert_eq!(
            with("defaultProfile", json!("a/b")),
            Some("defaultProfile".into())
        );
    }
}
