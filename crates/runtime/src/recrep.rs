//! The record-replay part of the [`crate::runtime::Runtime`], [`Phases`]: record-replay on
//! real pages (UPMlib's `record`/`compare_counters`/`replay`/`undo`): one `upmlib-recrep`
//! policy instance per named phase, driven through the model's epoch hooks. `counts` in the
//! calls below says whether the dynamic policy wants samples (then revoking every page again
//! after a call starts a new interval, whatever the phases want).

use crate::error::{Code, RtError};
use crate::host::Host;
use crate::parts::Parts;
use std::collections::HashMap;
use numaplace_model::dynamic::{self, Action, DynamicPolicy, View};
use numaplace_model::Spec;

/// A record-replay phase: its policy instance and how many `record` calls it has had.
pub(crate) struct Phase {
    pub(crate) policy: Box<dyn DynamicPolicy>,
    pub(crate) records: u32,
    pub(crate) compared: bool,
    pub(crate) replaying: bool,
}

/// The named phases, and which one UPMlib's calls (which name none) act on.
pub struct Phases {
    pub(crate) map: HashMap<String, Phase>,
    /// Which phase `upmlib_record` etc. act on (UPMlib's API names no phase).
    pub default_phase: String,
}

impl Default for Phases {
    fn default() -> Phases {
        Phases { map: HashMap::new(), default_phase: "phase".into() }
    }
}

impl Phases {
    /// Whether a phase is being recorded (between its two `record` calls): it wants samples.
    pub fn recording(&self) -> bool {
        self.map.values().any(|p| p.records == 1)
    }

    pub(crate) fn phase(&mut self, host: &Host, name: &str) -> Result<&mut Phase, RtError> {
        if !self.map.contains_key(name) {
            let mut text = format!("upmlib-recrep:phase={name}");
            if !host.cfg.recrep.is_empty() {
                text.push(',');
                text.push_str(&host.cfg.recrep);
            }
            let spec = Spec::parse(&text).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            let (policy, _) = dynamic::build(&spec, &host.machine, 1).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            self.map.insert(name.to_string(), Phase { policy, records: 0, compared: false, replaying: false });
        }
        Ok(self.map.get_mut(name).expect("inserted above"))
    }

    /// Runs one record-replay hook of `phase`'s policy on a fresh snapshot and applies its
    /// actions.
    fn phase_hook(&mut self, parts: &mut Parts, name: &str, kind: &'static str, hook: impl FnOnce(&mut dyn DynamicPolicy, &View<'_>) -> Vec<Action>) -> Result<u64, RtError> {
        let mut phase = self.map.remove(name).expect("phase exists");
        let result = (|| {
            let snap = parts.snapshot()?;
            let view = snap.view(&parts.host.machine, parts.host.now());
            let actions = hook(phase.policy.as_mut(), &view);
            let (rep, per_node) = parts.apply(&snap, &actions)?;
            parts.log(kind, &snap, rep.moved, per_node);
            Ok(rep.moved)
        })();
        self.map.insert(name.to_string(), phase);
        result
    }

    /// `record(phase)`: the first call marks the phase's start (counters snapshotted, a
    /// fresh sampling interval begins), the second its end (the phase's own samples are the
    /// difference). Seed 000 §3.3 records in iteration 2.
    ///
    /// # Errors
    /// A third call, or a failed system call.
    pub fn record(&mut self, parts: &mut Parts, counts: bool, name: &str) -> Result<(), RtError> {
                let records = self.phase(parts.host, name)?.records;
        match records {
            0 => {
                self.phase(parts.host, name)?.records = 1;
                parts.regions.clear_samples();
                self.phase_hook(parts, name, "record", |p, v| p.on_epoch_start(v, 2, name))?;
                parts.rearm(counts || self.recording());
            }
            1 => {
                self.phase_hook(parts, name, "record", |p, v| p.on_epoch_end(v, 2, name))?;
                self.phase(parts.host, name)?.records = 2;
                parts.rearm(counts || self.recording());
            }
            _ => return Err(RtError::new(Code::State, format!("record '{name}': already recorded (start and end)"))),
        }
        Ok(())
    }

    /// `compare_counters`: decides, from the recorded phase, which pages to move before it.
    ///
    /// # Errors
    /// The phase was not recorded start and end.
    pub fn compare(&mut self, parts: &mut Parts, name: &str) -> Result<(), RtError> {
                if self.phase(parts.host, name)?.records != 2 {
            return Err(RtError::new(Code::State, format!("compare '{name}': record the phase's start and end first")));
        }
        self.phase_hook(parts, name, "record", |p, v| p.on_iteration_end(v, 2))?;
        self.phase(parts.host, name)?.compared = true;
        Ok(())
    }

    /// `replay(phase)`: moves the phase's pages to the nodes that use them in the phase.
    ///
    /// # Errors
    /// Out of order, or a failed system call.
    pub fn replay(&mut self, parts: &mut Parts, counts: bool, name: &str) -> Result<u64, RtError> {
                if self.phase(parts.host, name)?.records == 2 && !self.phase(parts.host, name)?.compared {
            self.compare(parts, name)?;
        }
        if !self.phase(parts.host, name)?.compared {
            return Err(RtError::new(Code::State, format!("replay '{name}': the phase was not recorded (call record before and after it first)")));
        }
        self.phase(parts.host, name)?.replaying = true;
        let moved = self.phase_hook(parts, name, "replay", |p, v| p.on_epoch_start(v, 3, name));
        parts.rearm(counts || self.recording());
        moved
    }

    /// `undo()`: moves back every page the last replay of any phase moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn undo(&mut self, parts: &mut Parts, counts: bool) -> Result<u64, RtError> {
                let names: Vec<String> = self.map.iter().filter(|(_, p)| p.replaying).map(|(n, _)| n.clone()).collect();
        let mut moved = 0;
        for name in names {
            self.phase(parts.host, &name)?.replaying = false;
            moved += self.phase_hook(parts, &name, "undo", |p, v| p.on_epoch_end(v, 3, &name))?;
        }
        parts.rearm(counts || self.recording());
        Ok(moved)
    }
}

