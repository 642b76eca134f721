//! What a definition costs the model, in tokens.
//!
//! A definition is counted as the model sees it: serialised as compact JSON
//! and encoded with `o200k_base`, the tokenizer of current OpenAI models.
//! Other vendors' tokenizers differ by some percent; the ratio before/after
//! filtering is what matters and it is stable across them.
//!
//! Below the catalog (a primitive counts its own tokens once) and so below
//! the rules and the token report that uses both.

/// The tokens of a tool definition as a host puts it into the model's
/// context: a primitive's model definition, or one of the proxy's own search
/// tools, which are no primitive.
pub fn definition_tokens(definition: &serde_json::Value) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(&definition.to_string())
        .len()
}
