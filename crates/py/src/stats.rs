//! What the Python runtime tools (`numaplace.runtime`) need from the model as data, so they
//! keep no copy of it: the stats-file schema (`_native.stats_schema()`, from
//! [`numaplace_model::stats`]) and the placements' capabilities (`_native.placement_caps()`,
//! from [`numaplace_model::placement::PlacementCaps`]). Both return JSON text, as the rest of
//! `_native` does. [`register`] adds them to the module.

use numaplace_model::placement;
use numaplace_model::stats::{Field, Kind, FILE, VERSION};
use pyo3::prelude::*;
use serde_json::{json, Map, Value};

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

/// Every placement's capabilities as JSON: `{name: {"kernel_default": bool, "one_node": bool}}`
/// (see [`numaplace_model::placement::PlacementCaps`]).
#[pyfunction]
fn placement_caps() -> String {
    let m: Map<String, Value> = placement::REGISTRY
        .iter()
        .map(|p| (p.name.to_string(), json!({"kernel_default": p.caps.kernel_default, "one_node": p.caps.one_node})))
        .collect();
    Value::Object(m).to_string()
}

/// Adds this module's functions to `_native`.
///
/// # Errors
/// Only if PyO3 cannot add a function (a bug).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stats_schema, m)?)?;
    m.add_function(wrap_pyfunction!(placement_caps, m)?)?;
    Ok(())
}
