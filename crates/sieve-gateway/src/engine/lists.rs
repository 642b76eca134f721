//! A list as a host sees it, encoded once per view (issue 33): the items
//! of `tools/list` (or of another list method) that one profile, under
//! one narrowing, shows from one catalog, as the JSON array written on
//! the wire. Every host of that view is answered with these bytes until
//! the catalog, the config or the profile changes, so a list of 10,000
//! tools is not filtered, copied and encoded again per request.
//!
//! A view is named by the very `Arc`s it was built from, kept in the
//! entry: an `Arc` held cannot be freed and its address reused, so two
//! views are the same exactly when their pointers are. A new catalog or
//! config drops every entry, a profile read again drops its own; the
//! rest go least recently used first past [`MAX_BYTES`].

use super::{ActiveProfile, HostForms};
use crate::sync::Locked;
use sieve_core::config::Config;
use sieve_core::{Catalog, Kind, Narrowing};
use std::sync::{Arc, Mutex};

/// What the kept lists may weigh together; past it the oldest go.
const MAX_BYTES: usize = 64 << 20;

/// Everything a list's items depend on.
#[derive(Clone)]
pub struct View {
    pub config: Arc<Config>,
    pub catalog: Arc<Catalog>,
    pub forms: Arc<HostForms>,
    pub profile: Arc<ActiveProfile>,
    pub narrowing: Narrowing,
    pub kind: Kind,
}

impl View {
    fn same(&self, other: &View) -> bool {
        Arc::ptr_eq(&self.config, &other.config)
            && Arc::ptr_eq(&self.catalog, &other.catalog)
            && Arc::ptr_eq(&self.forms, &other.forms)
            && Arc::ptr_eq(&self.profile, &other.profile)
            && self.kind == other.kind
            && self.narrowing == other.narrowing
    }
}

/// The encoded lists kept, newest last.
#[derive(Default)]
pub struct EncodedLists {
    kept: Mutex<Vec<(View, Arc<str>)>>,
}

impl EncodedLists {
    /// The items of `view` as a JSON array, encoded by `encode` unless an
    /// earlier request of the same view already did.
    pub fn get_or_encode(&self, view: &View, encode: impl FnOnce() -> String) -> Arc<str> {
        if let Some(found) = self.find(view) {
            return found;
        }
        // Encoded outside the lock: two requests of one new view may both
        // encode it, but no request waits on another's view.
        let encoded: Arc<str> = encode().into();
        let mut kept = self.kept.locked();
        kept.retain(|(kept, _)| {
            Arc::ptr_eq(&kept.forms, &view.forms)
                && Arc::ptr_eq(&kept.config, &view.config)
                && (kept.profile.name != view.profile.name
                    || Arc::ptr_eq(&kept.profile, &view.profile))
        });
        if !kept.iter().any(|(kept, _)| kept.same(view)) {
            kept.push((view.clone(), encoded.clone()));
        }
        let mut total: usize = kept.iter().map(|(_, list)| list.len()).sum();
        while total > MAX_BYTES && kept.len() > 1 {
            total -= kept.remove(0).1.len();
        }
        encoded
    }

    fn find(&self, view: &View) -> Option<Arc<str>> {
        let mut kept = self.kept.locked();
        let at = kept.iter().position(|(kept, _)| kept.same(view))?;
        // The latest used goes last, so the oldest used goes first.
        let entry = kept.remove(at);
        let list = entry.1.clone();
        kept.push(entry);
        Some(list)
    }

    /// How many lists are kept (for tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.kept.locked().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sieve_core::profile::Profile;
    use sieve_core::rules::Rules;

    fn profile(name: &str) -> Arc<ActiveProfile> {
        let profile = Profile::default();
        Arc::new(ActiveProfile {
            name: name.into(),
            rules: Rules::new(&profile).expect("the default profile compiles"),
            profile,
        })
    }

    fn view(profile: &Arc<ActiveProfile>, forms: &Arc<HostForms>) -> View {
        View {
            config: Arc::new(Config::default()),
            catalog: Arc::new(Catalog::default()),
            forms: forms.clone(),
            profile: profile.clone(),
            narrowing: Narrowing::default(),
            kind: Kind::Tool,
        }
    }

    #[test]
    fn a_view_is_encoded_once_and_anything_new_in_it_encodes_again() {
        let lists = EncodedLists::default();
        let forms = Arc::new(HostForms::default());
        let default = profile("default");
        let first = view(&default, &forms);
        let mut encoded = 0;
        let mut encode = |text: &str| {
            encoded += 1;
            text.to_string()
        };
        assert_eq!(&*lists.get_or_encode(&first, || encode("[1]")), "[1]");
        // The same Arcs and narrowing: the kept bytes.
        let again = View {
            config: first.config.clone(),
            catalog: first.catalog.clone(),
            ..first.clone()
        };
        assert_eq!(&*lists.get_or_encode(&again, || encode("[2]")), "[1]");
        // Another kind, another narrowing: views of their own.
        let prompts = View {
            kind: Kind::Prompt,
            ..first.clone()
        };
        assert_eq!(&*lists.get_or_encode(&prompts, || encode("[3]")), "[3]");
        let narrowed = View {
            narrowing: Narrowing::default().groups(vec!["issues".into()]),
            ..first.clone()
        };
        assert_eq!(&*lists.get_or_encode(&narrowed, || encode("[4]")), "[4]");
        assert_eq!(lists.len(), 3);
        // The profile read again: its lists go, another profile's stay.
        let other = View {
            profile: profile("other"),
            ..first.clone()
        };
        assert_eq!(&*lists.get_or_encode(&other, || encode("[5]")), "[5]");
        let reloaded = View {
            profile: profile("default"),
            ..first.clone()
        };
        assert_eq!(&*lists.get_or_encode(&reloaded, || encode("[6]")), "[6]");
        assert_eq!(lists.len(), 2, "the old default's three lists went");
        // A new catalog's forms: everything kept before goes.
        let rebuilt = view(&reloaded.profile, &Arc::new(HostForms::default()));
        assert_eq!(&*lists.get_or_encode(&rebuilt, || encode("[7]")), "[7]");
        assert_eq!(lists.len(), 1);
        assert_eq!(encoded, 6);
    }
}
