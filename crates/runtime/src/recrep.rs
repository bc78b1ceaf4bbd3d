//! Record-replay on real pages (UPMlib's `record`/`compare_counters`/`replay`/`undo`): one
//! `upmlib-recrep` policy instance per named phase, driven through the model's epoch hooks.

use crate::driver::Runtime;
use crate::error::{Code, RtError};
use numaplace_model::dynamic::{self, Action, DynamicPolicy, View};
use numaplace_model::Spec;

/// A record-replay phase: its policy instance and how many `record` calls it has had.
pub(crate) struct Phase {
    pub(crate) policy: Box<dyn DynamicPolicy>,
    pub(crate) records: u32,
    pub(crate) compared: bool,
    pub(crate) replaying: bool,
}

impl Runtime {
    pub(crate) fn phase(&mut self, name: &str) -> Result<&mut Phase, RtError> {
        if !self.phases.contains_key(name) {
            let mut text = format!("upmlib-recrep:phase={name}");
            if !self.cfg.recrep.is_empty() {
                text.push(',');
                text.push_str(&self.cfg.recrep);
            }
            let spec = Spec::parse(&text).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            let (policy, _) = dynamic::build(&spec, &self.machine, 1).map_err(|e| RtError::new(Code::Spec, format!("record-replay: {e}")))?;
            self.phases.insert(name.to_string(), Phase { policy, records: 0, compared: false, replaying: false });
        }
        Ok(self.phases.get_mut(name).expect("inserted above"))
    }

    /// Runs one record-replay hook of `phase`'s policy on a fresh snapshot and applies its
    /// actions.
    pub(crate) fn phase_hook(&mut self, name: &str, kind: &'static str, hook: impl FnOnce(&mut dyn DynamicPolicy, &View<'_>) -> Vec<Action>) -> Result<u64, RtError> {
        let mut phase = self.phases.remove(name).expect("phase exists");
        let result = (|| {
            let snap = self.snapshot()?;
            let view = snap.view(&self.machine, self.now());
            let actions = hook(phase.policy.as_mut(), &view);
            let (rep, per_node) = self.apply(&snap, &actions)?;
            self.log(kind, &snap, rep.moved, per_node);
            Ok(rep.moved)
        })();
        self.phases.insert(name.to_string(), phase);
        result
    }

    /// `record(phase)`: the first call marks the phase's start (counters snapshotted, a
    /// fresh sampling interval begins), the second its end (the phase's own samples are the
    /// difference). Seed 000 §3.3 records in iteration 2.
    ///
    /// # Errors
    /// A third call, or a failed system call.
    pub fn record(&mut self, name: &str) -> Result<(), RtError> {
        self.api_calls += 1;
        let records = self.phase(name)?.records;
        match records {
            0 => {
                self.phase(name)?.records = 1;
                self.clear_samples();
                self.phase_hook(name, "record", |p, v| p.on_epoch_start(v, 2, name))?;
                self.rearm();
            }
            1 => {
                self.phase_hook(name, "record", |p, v| p.on_epoch_end(v, 2, name))?;
                self.phase(name)?.records = 2;
                self.rearm();
            }
            _ => return Err(RtError::new(Code::State, format!("record '{name}': already recorded (start and end)"))),
        }
        Ok(())
    }

    /// `compare_counters`: decides, from the recorded phase, which pages to move before it.
    ///
    /// # Errors
    /// The phase was not recorded start and end.
    pub fn compare(&mut self, name: &str) -> Result<(), RtError> {
        self.api_calls += 1;
        if self.phase(name)?.records != 2 {
            return Err(RtError::new(Code::State, format!("compare '{name}': record the phase's start and end first")));
        }
        self.phase_hook(name, "record", |p, v| p.on_iteration_end(v, 2))?;
        self.phase(name)?.compared = true;
        Ok(())
    }

    /// `replay(phase)`: moves the phase's pages to the nodes that use them in the phase.
    ///
    /// # Errors
    /// Out of order, or a failed system call.
    pub fn replay(&mut self, name: &str) -> Result<u64, RtError> {
        self.api_calls += 1;
        if self.phase(name)?.records == 2 && !self.phase(name)?.compared {
            self.compare(name)?;
        }
        if !self.phase(name)?.compared {
            return Err(RtError::new(Code::State, format!("replay '{name}': the phase was not recorded (call record before and after it first)")));
        }
        self.phase(name)?.replaying = true;
        let moved = self.phase_hook(name, "replay", |p, v| p.on_epoch_start(v, 3, name));
        self.rearm();
        moved
    }

    /// `undo()`: moves back every page the last replay of any phase moved.
    ///
    /// # Errors
    /// A failed system call.
    pub fn undo(&mut self) -> Result<u64, RtError> {
        self.api_calls += 1;
        let names: Vec<String> = self.phases.iter().filter(|(_, p)| p.replaying).map(|(n, _)| n.clone()).collect();
        let mut moved = 0;
        for name in names {
            self.phase(&name)?.replaying = false;
            moved += self.phase_hook(&name, "undo", |p, v| p.on_epoch_end(v, 3, &name))?;
        }
        self.rearm();
        Ok(moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::testing::rt;
    use crate::sys::Sys;

    #[test]
    fn record_replay_moves_the_phase_pages_and_undo_restores_them() {
        let (mut rt, fake, _space) = rt("none");
        rt.cfg.recrep = "n=100".into();
        let base = 0x5000_0000;
        let pages = 32;
        fake.touch(base, pages * 4096);
        let slot = rt.register(base, pages * 4096, "u", None).unwrap();
        assert_eq!(rt.replay("z").unwrap_err().code, Code::State);
        rt.record("z").unwrap();
        // In the phase, node 3 uses the second half.
        for p in pages / 2..pages {
            crate::space::SPACE.inject(slot, p, 3, 2);
        }
        rt.record("z").unwrap();
        assert_eq!(rt.record("z").unwrap_err().code, Code::State);
        rt.compare("z").unwrap();
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert!((pages / 2..pages).all(|p| fake.node_of(base + p * 4096) == Some(3)));
        assert_eq!(rt.undo().unwrap(), 16);
        assert!((0..pages).all(|p| fake.node_of(base + p * 4096) == Some(0)));
        // Replayed again in the next iteration.
        assert_eq!(rt.replay("z").unwrap(), 16);
        assert_eq!(rt.undo().unwrap(), 16);
        rt.unregister(base);
    }
}
