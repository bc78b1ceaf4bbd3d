//! What the Python runtime tools (`numaplace.runtime`) need from the model as data, so they
//! keep no copy of it: the stats-file schema (`_native.stats_schema()`, from
//! [`numaplace_model::stats`]) and the library's settings (`_native.runtime_options()`, from
//! [`numaplace_model::rtconfig`]), as JSON text like the rest of `_native` (the placements'
//! capabilities are in `_native.placements()`). [`register`] adds them to the module.

use numaplace_model::rtconfig::{self, RtKind};
use numaplace_model::stats::{Field, Kind, FILE, VERSION};
use pyo3::prelude::*;
use serde_json::{json, Value};

fn fields_json(fields: &[Field]) -> Value {
    fields
        .iter()
        .map(|f| {
            let mut o = json!({"name": f.name, "kind": f.kind.name(), "nullable": f.nullable, "doc": f.doc});
            if let Kind::List(inner) = f.kind {
                o["fields"] = fields_json(inner);
            }
            o
        })
        .collect()
}

/// The runtime's stats-file schema as JSON: `version`, and `fields`, the file's keys in the
/// order written, each with `name`, `kind` (`text`, `integer`, `number`, `share`, `per-node`,
/// `list`), `nullable` and `doc`; a `list` has the `fields` of its objects.
#[pyfunction]
fn stats_schema() -> String {
    json!({"version": VERSION, "fields": fields_json(FILE)}).to_string()
}

/// The runtime library's settings as a JSON array (`numaplace_model::rtconfig::OPTIONS`):
/// `name`, `env`, `kind` (with `choices` for a choice), `default`, `launcher` (`numaplace
/// run`'s default, or null where it has no flag) and `doc`.
#[pyfunction]
fn runtime_options() -> String {
    let v: Vec<Value> = rtconfig::OPTIONS
        .iter()
        .map(|o| {
            let mut j = json!({
                "name": o.name,
                "env": o.env,
                "kind": o.kind.name(),
                "default": o.default,
                "launcher": o.launcher,
                "doc": o.doc,
            });
            if let RtKind::Choice(words) = o.kind {
                j["choices"] = json!(words);
            }
            j
        })
        .collect();
    json!({"preload_env": rtconfig::PRELOAD_ENV, "options": v}).to_string()
}

/// Adds this module's functions to `_native`.
///
/// # Errors
/// Only if PyO3 cannot add a function (a bug).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stats_schema, m)?)?;
    m.add_function(wrap_pyfunction!(runtime_options, m)?)?;
    Ok(())
}
