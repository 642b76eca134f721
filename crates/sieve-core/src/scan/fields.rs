//! Every text of a tool or prompt definition a model may read, with its
//! path: the name, title, description, annotations, `_meta`, and every
//! part of the input and output schemas (property names, descriptions,
//! titles, enum values, defaults, examples, required lists, nested items).

use serde_json::Value;

use super::meaning::Place;

/// One text and where it is.
#[derive(Debug)]
pub struct Text {
    /// `inputSchema.properties.sidenote.description`, `inputSchema.required[1]`.
    pub path: String,
    pub text: String,
    pub place: Place,
    /// A name (a property's, a required entry) rather than prose: read as
    /// its words.
    pub is_name: bool,
}

/// The texts of a tool definition or a prompt.
pub fn texts(definition: &Value) -> Vec<Text> {
    let mut out = Vec::new();
    if let Some(object) = definition.as_object() {
        for (key, value) in object {
            let place = match key.as_str() {
                "inputSchema" | "outputSchema" | "arguments" => Place::Property,
                _ => Place::Prose,
            };
            walk(key, value, place, false, &mut out);
        }
    }
    out
}

fn walk(path: &str, value: &Value, place: Place, inside_property: bool, out: &mut Vec<Text>) {
    let place_here = if inside_property { place } else { Place::Prose };
    match value {
        Value::String(s) => {
            let is_name = place == Place::Property && path.contains("required[");
            out.push(Text {
                path: path.to_string(),
                text: s.clone(),
                place: if is_name { Place::Property } else { place_here },
                is_name,
            })
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(&format!("{path}[{i}]"), item, place, inside_property, out);
            }
        }
        Value::Object(map) => {
            let is_properties = path.ends_with(".properties") || path.ends_with("properties");
            for (key, item) in map {
                let child = format!("{path}.{key}");
                if is_properties && place == Place::Property {
                    out.push(Text {
                        path: child.clone(),
                        text: key.clone(),
                        place: Place::Property,
                        is_name: true,
                    });
                }
                let into_property = inside_property || (is_properties && place == Place::Property);
                walk(&child, item, place, into_property, out);
            }
        }
        _ => {}
    }
}
