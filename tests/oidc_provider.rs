//! The OpenID provider of the team gateway's tests (`sieve_tests::oidc`)
//! issues what a gateway checks: JWT access tokens signed with a key of the
//! JWKS its discovery document names, for the audience asked for, with the
//! person in `sub` and their `groups`; short-lived ones that expire; and a
//! new signing key when started again without its keys file.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Header, Validation};
use serde_json::Value;
use sieve_tests::oidc::Provider;

const RESOURCE: &str = "http://127.0.0.1:1234/mcp";

/// The provider's signing keys, found the way a gateway finds them: the
/// discovery document's `jwks_uri`.
async fn jwks(provider: &Provider) -> JwkSet {
    let discovery = get(&format!(
        "{}/.well-known/openid-configuration",
        provider.issuer()
    ))
    .await;
    assert_eq!(discovery["issuer"], provider.issuer(), "{discovery}");
    let uri = discovery["jwks_uri"]
        .as_str()
        .unwrap_or_else(|| panic!("no jwks_uri in {discovery}"));
    assert_eq!(uri, format!("{}/jwks", provider.issuer()));
    let jwks = get(uri).await;
    serde_json::from_value(jwks.clone()).unwrap_or_else(|e| panic!("not a JWKS ({e}): {jwks}"))
}

async fn get(url: &str) -> Value {
    let response = reqwest::get(url)
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"));
    assert!(response.status().is_success(), "GET {url}: {response:?}");
    response
        .json()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: not the JSON expected: {e}"))
}

/// The token's header and claims, after checking its signature with the key
/// of `jwks` its `kid` names, its issuer, audience and expiry.
fn verify(token: &str, jwks: &JwkSet, issuer: &str) -> (Header, Value) {
    let header =
        jsonwebtoken::decode_header(token).unwrap_or_else(|e| panic!("not a JWT ({e}): {token}"));
    let kid = header.kid.as_deref().expect("the header names its key");
    let jwk = jwks
        .find(kid)
        .unwrap_or_else(|| panic!("kid {kid} is not in the JWKS: {jwks:?}"));
    let key = DecodingKey::from_jwk(jwk).expect("a usable public key");
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[RESOURCE]);
    validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
    let claims = jsonwebtoken::decode::<Value>(token, &key, &validation)
        .unwrap_or_else(|e| panic!("the token does not verify ({e}): {token}"))
        .claims;
    (header, claims)
}

fn now() -> u64 {
    jsonwebtoken::get_current_timestamp()
}

#[tokio::test]
async fn tokens_carry_the_person_their_groups_and_the_audience() {
    let keys = tempfile::tempdir().unwrap();
    let provider = Provider::start(&keys.path().join("jwks.json"));
    let jwks = jwks(&provider).await;

    for (user, groups) in [("alice", "engineering"), ("bob", "support")] {
        let (header, claims) = verify(&provider.token(user, RESOURCE), &jwks, provider.issuer());
        assert_eq!(header.typ.as_deref(), Some("at+jwt"), "{header:?}");
        assert_eq!(claims["iss"], provider.issuer(), "{claims}");
        assert_eq!(claims["aud"], RESOURCE, "{claims}");
        assert_eq!(claims["sub"], user, "{claims}");
        assert_eq!(claims["groups"], serde_json::json!([groups]), "{claims}");
        assert_eq!(claims["client_id"], "mcp-host", "{claims}");
        let exp = claims["exp"].as_u64().expect("a numeric exp");
        let iat = claims["iat"].as_u64().expect("a numeric iat");
        assert!(exp > now(), "already expired: {claims}");
        assert_eq!(exp - iat, 600, "the normal lifetime: {claims}");
    }

    let (_, carol) = verify(&provider.token("carol", RESOURCE), &jwks, provider.issuer());
    assert_eq!(carol["sub"], "carol", "{carol}");
    assert!(
        carol.get("groups").is_none(),
        "carol has no groups: {carol}"
    );

    let (_, short) = verify(
        &provider.short_lived_token("alice", RESOURCE),
        &jwks,
        provider.issuer(),
    );
    let lifetime = short["exp"].as_u64().unwrap() - short["iat"].as_u64().unwrap();
    assert!(
        lifetime <= 2,
        "a short-lived token lives {lifetime} s: {short}"
    );
    assert_eq!(short["client_id"], "short-lived", "{short}");
    assert_eq!(
        short["groups"],
        serde_json::json!(["engineering"]),
        "{short}"
    );
}

#[tokio::test]
async fn started_again_without_its_keys_it_signs_with_a_new_key() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("jwks.json");
    let kid_of = |token: &str| jsonwebtoken::decode_header(token).unwrap().kid.unwrap();

    let provider = Provider::start(&keys);
    let port = provider.port();
    let first = kid_of(&provider.token("alice", RESOURCE));
    drop(provider);

    let provider = Provider::start_on(port, &keys);
    assert_eq!(provider.port(), port);
    let again = kid_of(&provider.token("alice", RESOURCE));
    assert_eq!(again, first, "the keys file keeps the key");
    drop(provider);

    std::fs::remove_file(&keys).unwrap();
    let provider = Provider::start_on(port, &keys);
    assert_eq!(provider.issuer(), format!("http://127.0.0.1:{port}"));
    let jwks = jwks(&provider).await;
    let (header, claims) = verify(&provider.token("bob", RESOURCE), &jwks, provider.issuer());
    let second = header.kid.unwrap();
    assert_ne!(second, first, "a new key after the keys file was deleted");
    assert!(jwks.find(&first).is_none(), "the old key is gone: {jwks:?}");
    assert_eq!(claims["sub"], "bob", "{claims}");
}
