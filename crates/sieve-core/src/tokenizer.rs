//! What a definition costs the model, in tokens.
//!
//! A definition is counted as the model sees it: serialised as compact JSON
//! and encoded with `o200k_base`, the tokenizer of current OpenAI models.
//! Other vendors' tokenizers differ by some percent; the ratio before/after
//! filtering is what matters and it is stable across them.
//!
//! Below the catalog (a primitive counts its own tokens once) and so below
//! the rules and the token report that uses both.

/// Bytes of text per token, on average: English prose runs to four or a
/// little more per `o200k_base` token, JSON and code to a little less.
pub const BYTES_PER_TOKEN: u64 = 4;

/// The tokens of a text known only by its length in bytes: what a tool's
/// result adds to the model's context, estimated where counting would
/// need the text itself (the proxy measures results on the call's path,
/// where it keeps no copy).
pub fn tokens_of_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The tokens of a tool definition as a host puts it into the model's
/// context: a primitive's model definition, or one of the proxy's own search
/// tools, which are no primitive.
pub fn definition_tokens(definition: &serde_json::Value) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(&definition.to_string())
        .len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_of_bytes_is_near_the_count_for_prose_and_json() {
        let prose = "The proxy reads each message once into its id, method and raw \
                     params, and passes on what it does not change as it came. A tool \
                     whose results are large costs the person the tokens they add to \
                     every later turn of the conversation. "
            .repeat(20);
        let json = serde_json::json!({"issues": (1..60).map(|n| serde_json::json!({
            "number": n, "title": format!("Crash when opening file {n}"),
            "state": "open", "labels": ["bug", "ui"], "assignee": null
        })).collect::<Vec<_>>()})
        .to_string();
        for text in [prose, json] {
            let counted = tiktoken_rs::o200k_base_singleton()
                .encode_ordinary(&text)
                .len() as f64;
            let estimated = tokens_of_bytes(text.len() as u64) as f64;
            let ratio = estimated / counted;
            assert!(
                (0.6..=1.5).contains(&ratio),
                "{estimated} estimated for {counted} counted: {}",
                &text[..80]
            );
        }
        assert_eq!(tokens_of_bytes(0), 0);
        assert_eq!(tokens_of_bytes(1), 1, "a byte is part of a token");
        assert_eq!(tokens_of_bytes(8_000), 2_000);
    }
}
