//! The AI hosts as the command line names them.

use sieve_api::HostKind;

/// Host names as clap offers and checks them.
pub(crate) fn host_kind_parser() -> impl clap::builder::TypedValueParser<Value = HostKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(HostKind::ALL.map(HostKind::as_str))
        .map(|name| name.parse::<HostKind>().expect("offered names parse"))
}
