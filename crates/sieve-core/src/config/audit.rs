//! `settings.audit` (DESIGN §12): whether every `tools/call` is recorded,
//! and whether with its arguments. Written `true`, `false` or
//! `{"arguments": true}`; off unless a person turns it on, and then written
//! back in the shortest of those shapes.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// What the audit records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Audit {
    /// Every call is recorded: who, profile, server, tool, status, duration.
    pub on: bool,
    /// Its arguments too (only when `on`).
    pub arguments: bool,
}

impl Audit {
    pub fn is_off(&self) -> bool {
        !self.on
    }
}

impl Serialize for Audit {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        if self.on && self.arguments {
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("arguments", &true)?;
            map.end()
        } else {
            serializer.serialize_bool(self.on)
        }
    }
}

const EXPECTED: &str = "true, false or {\"arguments\": true} (settings.audit)";

impl<'de> Deserialize<'de> for Audit {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Audit, D::Error> {
        struct AuditVisitor;
        impl<'de> Visitor<'de> for AuditVisitor {
            type Value = Audit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<Audit, E> {
                Ok(Audit {
                    on,
                    arguments: false,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Audit, A::Error> {
                let mut arguments = false;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "arguments" {
                        return Err(de::Error::custom(format!(
                            "settings.audit takes only \"arguments\", not {key:?}; write {EXPECTED}"
                        )));
                    }
                    arguments = map.next_value()?;
                }
                // An object says the audit is wanted: {} or
                // {"arguments": false} records calls without arguments.
                Ok(Audit {
                    on: true,
                    arguments,
                })
            }
        }
        deserializer.deserialize_any(AuditVisitor)
    }
}
