//! `auto`'s measured choice ([`Launcher::tune`](kernels_gen::schedule::Launcher::tune)): the
//! first time a kernel meets a tile set, the model's few best candidates are compiled (in
//! parallel, each entry point alone), run once each, then timed with CUDA events on the call's
//! arguments ([`crate::tune::measure`]: 9 rounds, medians), and the fastest is kept with the tile
//! set and in the tuning cache on disk ([`crate::tune`]), so a later call, or a later process,
//! starts tuned.
//!
//! Tuning changes no result: the candidates run on copies of the buffers the kernel may write
//! (each copy restored from the user's buffer before every run, so an epilogue that reads its
//! output, atomics and in-place updates all see the call's inputs), and then the winner runs
//! once on the user's buffers, as an untuned call would.
//!
//! Not tuned (the model's first choice runs): calls over a tile subset (a traversal's frontier
//! changes at every level; the model sees the subset's own sizes), checked mode (its timings are
//! not the plain kernels'), `LOOPS_TUNE=off`, buffers of another handle's stream, and where the
//! copies cannot be allocated.

use std::time::Instant;

use cudarc::driver::sys::CUdeviceptr;
use kernels_gen::schedule::{Launch, RangeEntry, Variant};

use super::Plan;
use crate::device::DeviceBuffer;
use crate::error::{LoopsError, Result};
use crate::launch::preprocess::{Preprocessed, TunedKey};
use crate::launch::{stream_hint, Param};
use crate::tune::measure::{self, Candidates, Settings};
use crate::tune::report::{publish, TuneReport};
use crate::tune::{DeviceIdentity, Fingerprint, TuneCache, TuneKey, Winner};

impl Plan<'_, '_> {
    /// The variant to launch among `shortlist` (the model's best first): see the module docs.
    pub(super) fn pick(&mut self, shortlist: &[usize]) -> Result<usize> {
        let first = *shortlist
            .first()
            .ok_or_else(|| LoopsError::KernelArguments {
                kernel: self.kernel.name.to_string(),
                detail: "auto has no candidate for this call".into(),
            })?;
        let cache = TuneCache::global();
        let foreign = self
            .args
            .streams
            .iter()
            .any(|(_, s)| *s != self.gpu.stream());
        if shortlist.len() < 2
            || self.call.subset.is_some()
            || self.only.is_some()
            || self.checked
            || foreign
            || !cache.tuning_enabled()
        {
            return Ok(first);
        }
        let memo = self.tuned_key();
        let kept = self.call.set.preprocessed();
        if let Some(i) = kept.tuned(&memo).and_then(|name| self.candidate(name)) {
            return Ok(i);
        }
        let key = self.disk_key(&memo);
        if let Some(i) = cache
            .load(&key)
            .and_then(|winner| self.candidate(&winner.variant))
        {
            kept.remember_tuned(memo, self.kernel.variants[i].name);
            return Ok(i);
        }
        let started = Instant::now();
        let medians = match self.time_candidates(shortlist) {
            Ok(medians) => medians,
            // The model's choice runs, and the call reports what its own launch meets.
            Err(e) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    eprintln!(
                        "loops: could not time auto's candidates for `{}` ({e}); the model's choice runs (this warning is shown once)",
                        self.kernel.name
                    )
                });
                return Ok(first);
            }
        };
        let (best, _) = medians
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("a shortlist of two or more");
        let winner = shortlist[best];
        let name = self.kernel.variants[winner].name;
        let timings_us: Vec<(String, f64)> = shortlist
            .iter()
            .zip(&medians)
            .map(|(&v, &us)| (self.kernel.variants[v].name.to_string(), us))
            .collect();
        cache.store(
            &key,
            &Winner {
                variant: name.to_string(),
                timings_us: timings_us.clone(),
            },
        );
        kept.remember_tuned(memo, name);
        let stats = self.call.set.stats();
        publish(&TuneReport {
            kernel: self.kernel.name.to_string(),
            element: self.key.to_string(),
            tiles: stats.tiles,
            atoms: stats.atoms,
            timings_us,
            winner: name.to_string(),
            cost: started.elapsed(),
            stored: cache.path(&key),
        });
        Ok(winner)
    }

    /// The index of the variant named `name` if this call may launch it (a cached winner from
    /// another build of the kernel, or for a narrow set, may not).
    fn candidate(&self, name: &str) -> Option<usize> {
        let wide = self.call.set.is_wide();
        self.kernel
            .variants
            .iter()
            .position(|v| v.name == name && (!wide || v.wide) && !v.over_list)
    }

    /// What a winner kept with the tile set is for.
    fn tuned_key(&self) -> TunedKey {
        let source = self.kernel.source;
        let lens = self
            .args
            .what
            .iter()
            .zip(&self.args.slots)
            .filter(|(w, _)| matches!(w, Param::Len))
            .map(|(_, &len)| len)
            .collect();
        TunedKey {
            source: (source.as_ptr() as usize, source.len()),
            element: self.key.to_string(),
            lens,
        }
    }

    /// The tuning cache's key: the kernel's source, the device, and everything the choice depends
    /// on.
    fn disk_key(&self, memo: &TunedKey) -> TuneKey {
        let device = DeviceIdentity::of(self.gpu);
        let stats = self.call.set.stats();
        let fingerprint = Fingerprint {
            element: self.key.to_string(),
            checked: self.checked,
            wide: self.call.set.is_wide(),
            tiles: stats.tiles,
            atoms: stats.atoms,
            histogram: stats.histogram,
            longest_tile: stats.max_tile_atoms,
            longest_empty_run: stats.longest_empty_run,
            extra: memo.lens.clone(),
        };
        TuneKey::new(self.kernel.name, self.kernel.source, &device, &fingerprint)
    }

    /// The entry points the launches of `variant` in this call use: its own, or for a variant
    /// that reads block starts, the form [`crate::Gpu::launch`] will pick.
    fn launch_entry(&self, variant: &Variant) -> String {
        let entry = self.entry(variant);
        let takes_starts = variant
            .schedule_hidden()
            .contains(&kernels_gen::abi::Hidden::BlockStarts);
        if !takes_starts {
            return entry;
        }
        let kept = !self.search_ranges;
        let streamed = stream_hint().unwrap_or_else(|| {
            kernels_gen::schedule::streams_past_l2(
                self.call.set.num_atoms() as u64,
                self.args.read_only_bytes,
                self.gpu.limits(),
            )
        });
        RangeEntry::choose(kept, streamed, self.checked).entry_name(&entry)
    }

    /// Each candidate's median time per launch, in microseconds, on copies of the call's outputs.
    fn time_candidates(&mut self, shortlist: &[usize]) -> Result<Vec<f64>> {
        let variants: Vec<Variant> = shortlist.iter().map(|&v| self.kernel.variants[v]).collect();
        let entries: Vec<String> = variants.iter().map(|v| self.launch_entry(v)).collect();
        let source = self.spec(&variants[0]).source;
        self.compile_for_tuning(source, &entries, &variants)?;
        let outputs = self.args.outputs.clone();
        let copies = outputs
            .iter()
            .map(|o| self.gpu.uninit::<u64>(o.bytes.div_ceil(8).max(1)))
            .collect::<Result<Vec<DeviceBuffer<u64>>>>()?;
        let pairs: Vec<(CUdeviceptr, CUdeviceptr, usize)> = outputs
            .iter()
            .zip(&copies)
            .map(|(o, c)| (o.ptr, c.device_ptr(), o.bytes))
            .collect();
        let user_args = self.args.clone();
        for (o, c) in outputs.iter().zip(&copies) {
            self.args.slots[o.slot] = c.device_ptr();
        }
        let timed = self.timed_runs(shortlist, &pairs);
        self.args = user_args;
        timed
    }

    /// Each candidate's median time over the measurement's rounds ([`measure::medians`] with
    /// [`Settings::AUTO`]), every launch preceded by restoring the copies of the outputs (untimed).
    fn timed_runs(
        &mut self,
        shortlist: &[usize],
        copies: &[(CUdeviceptr, CUdeviceptr, usize)],
    ) -> Result<Vec<f64>> {
        struct Shortlist<'p, 'a, 'b, 'c> {
            plan: &'p mut Plan<'a, 'b>,
            shortlist: &'c [usize],
            copies: &'c [(CUdeviceptr, CUdeviceptr, usize)],
        }
        impl Candidates for Shortlist<'_, '_, '_, '_> {
            fn count(&self) -> usize {
                self.shortlist.len()
            }
            fn prepare(&mut self, _: usize) -> Result<()> {
                self.plan.restore(self.copies)
            }
            fn run(&mut self, i: usize) -> Result<()> {
                self.plan.launch_variant(&Launch::whole(self.shortlist[i]))
            }
        }
        let gpu = self.gpu;
        measure::medians(
            gpu,
            Settings::AUTO,
            &mut Shortlist {
                plan: self,
                shortlist,
                copies,
            },
        )
    }

    /// Compiles (or reads from the disk cache) the candidates' entry points and the runtime's
    /// kernels the timing needs (the stream hold; the block-start search of carry candidates),
    /// all at once: their compiles are the first call's cost.
    fn compile_for_tuning(
        &self,
        source: &'static str,
        entries: &[String],
        variants: &[Variant],
    ) -> Result<()> {
        let gpu = self.gpu;
        let starts = variants.iter().any(|v| {
            v.schedule_hidden()
                .contains(&kernels_gen::abi::Hidden::BlockStarts)
        });
        std::thread::scope(|scope| {
            let hold = scope.spawn(|| measure::load_hold(gpu));
            let ranges = starts.then(|| scope.spawn(|| gpu.block_starts_function()));
            let candidates = gpu.load_entries(self.kernel.name, source, entries);
            let join = |h: std::thread::ScopedJoinHandle<'_, Result<_>>| {
                h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
            };
            candidates?;
            join(hold).map(drop)?;
            if let Some(ranges) = ranges {
                join(ranges).map(drop)?;
            }
            Ok(())
        })
    }

    /// Compiles the entry points `variants` launch in this call (those not yet loaded), at once:
    /// for a plan of several variants (`lrb`'s mappings).
    pub(super) fn compile_variants(&self, variants: &[usize]) -> Result<()> {
        let Some(&first) = variants.first() else {
            return Ok(());
        };
        let source = self.spec(&self.kernel.variants[first]).source;
        let entries: Vec<String> = variants
            .iter()
            .filter_map(|&v| self.kernel.variants.get(v))
            .map(|v| self.launch_entry(v))
            .collect();
        self.gpu.load_entries(self.kernel.name, source, &entries)
    }

    /// Copies the user's outputs into their copies (queued on the stream).
    fn restore(&self, copies: &[(CUdeviceptr, CUdeviceptr, usize)]) -> Result<()> {
        for &(from, to, bytes) in copies {
            self.gpu
                .copy_device(from, to, bytes, "restoring a tuning copy")?;
        }
        Ok(())
    }
}
