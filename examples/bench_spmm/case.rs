//! One SpMM or SDDMM case of the benchmark: a matrix at one k, its kernels checked and timed.

use super::*;

/// One matrix at one k: the operands, the reference's rows, how to time.
pub(super) struct Case<'a, T: Float> {
    pub(super) gpu: &'a Gpu,
    pub(super) name: &'a str,
    pub(super) a: &'a sprs::CsMat<T>,
    pub(super) da: &'a DeviceCsr<T>,
    pub(super) k: usize,
    pub(super) rows: &'a [usize],
    pub(super) plan: &'a Plan,
    pub(super) pb: &'a ProgressBar,
    pub(super) seed: u64,
}

impl<T: Float> Case<'_, T> {
    fn result(&self) -> MatrixResult {
        MatrixResult::new::<T>(
            &format!("{} k={}", self.name, self.k),
            self.a.rows(),
            self.a.cols(),
            self.a.nnz(),
        )
    }

    /// Checks one kernel (poisoned output, one launch, against the reference), then times it and
    /// checks the last timed launch's output again.
    fn measure(
        &self,
        kernel: &str,
        kind: Kind,
        reference: &DenseReference,
        poison: &mut dyn FnMut() -> Result<(), BoxError>,
        launch: &mut dyn FnMut() -> Result<(), BoxError>,
        output: &mut dyn FnMut() -> Result<Vec<T>, BoxError>,
    ) -> Measurement {
        self.pb
            .set_message(format!("{} k={}: {kernel}", self.name, self.k));
        let gpu = self.gpu;
        let mut go = || -> Result<Measurement, BoxError> {
            poison()?;
            launch()?;
            gpu.synchronize()?;
            let check = reference.check(&output()?);
            if !check.passed() {
                return Ok(Measurement::failed(kernel, kind, check.to_string()));
            }
            let (median, per_launch, timing) = time_launches(gpu, self.plan, true, launch)?;
            let check = reference.check(&output()?);
            if !check.passed() {
                return Ok(Measurement::failed(
                    kernel,
                    kind,
                    format!("after timing: {check}"),
                ));
            }
            Ok(Measurement {
                kernel: kernel.to_string(),
                kind,
                median_ms: Some(median),
                per_launch_ms: Some(per_launch),
                timing,
                failure: None,
            })
        };
        let m = go().unwrap_or_else(|e| Measurement::failed(kernel, kind, chain(e.as_ref())));
        self.pb.inc(1);
        m
    }

    /// The op's first call on [`FIRST_CALL_REPS`] fresh uploads of the matrix (uploads not
    /// timed): host wall time from the call to its result on the device, the measurement of the
    /// candidate plans included (in this process's memory only: nothing read from or written to
    /// the tuning cache on disk), kernels already compiled by the `op` line. k = 1 runs the
    /// language's `spmv` (`auto`), whose first call on a matrix measures its own candidates (and
    /// may read a winner from the tuning cache on disk: run with `LOOPS_CACHE=off` for a cold
    /// figure). Checked on the first upload.
    fn first_call(
        &self,
        db: &DeviceBuffer<T>,
        c: &mut DeviceBuffer<T>,
        reference: &DenseReference,
    ) -> Measurement {
        self.pb
            .set_message(format!("{} k={}: {OP_FIRST_CALL}", self.name, self.k));
        let (gpu, k) = (self.gpu, self.k);
        let mut go = || -> Result<Measurement, BoxError> {
            let mut ms = Vec::new();
            for rep in 0..FIRST_CALL_REPS {
                let fresh = gpu.upload_csr(self.a)?;
                gpu.fill(c, T::POISON)?;
                gpu.synchronize()?;
                let started = Instant::now();
                if k == 1 {
                    fresh.spmm(gpu, db, k, c)?;
                } else {
                    spmm_tuned(gpu, &fresh, db, k, c, &TuneCache::not_persisted())?;
                }
                gpu.synchronize()?;
                ms.push(started.elapsed().as_secs_f64() * 1e3);
                if rep == 0 {
                    let check = reference.check(&gpu.download(c)?);
                    if !check.passed() {
                        return Ok(Measurement::failed(
                            OP_FIRST_CALL,
                            Kind::Ablation,
                            check.to_string(),
                        ));
                    }
                }
            }
            ms.sort_by(f64::total_cmp);
            let median = ms[ms.len() / 2];
            Ok(Measurement {
                kernel: OP_FIRST_CALL.to_string(),
                kind: Kind::Ablation,
                median_ms: Some(median),
                per_launch_ms: Some(median),
                timing: bench::Timing::PerLaunch {
                    samples: FIRST_CALL_REPS,
                },
                failure: None,
            })
        };
        let m = go().unwrap_or_else(|e| {
            Measurement::failed(OP_FIRST_CALL, Kind::Ablation, chain(e.as_ref()))
        });
        self.pb.inc(1);
        m
    }

    pub(super) fn spmm(
        &self,
        cusparse: Option<&Cusparse>,
        schedules: &[&'static str],
        lanes: &[&'static str],
        quick: bool,
        variants: bool,
    ) -> Result<MatrixResult, BoxError> {
        let (gpu, k) = (self.gpu, self.k);
        self.pb
            .set_message(format!("{} k={k}: B and the reference", self.name));
        let b: Vec<T> =
            loops::io::generate::random_vector(self.a.cols() * k, self.seed ^ (k as u64) << 32);
        let reference = DenseReference::spmm(self.a, &b, k, self.rows);
        self.pb.inc(1);
        let db = gpu.upload(&b)?;
        drop(b);
        let mut result = self.result();
        let c = std::cell::RefCell::new(gpu.zeros::<T>(self.a.rows() * k)?);
        let poison =
            &mut || -> Result<(), BoxError> { Ok(gpu.fill(&mut c.borrow_mut(), T::POISON)?) };
        let output = &mut || -> Result<Vec<T>, BoxError> { Ok(gpu.download(&c.borrow())?) };
        result.kernels.push(self.measure(
            OP,
            Kind::Schedule,
            &reference,
            poison,
            &mut || Ok(self.da.spmm(gpu, &db, k, &mut c.borrow_mut())?),
            output,
        ));
        result
            .kernels
            .push(self.first_call(&db, &mut c.borrow_mut(), &reference));
        if !quick {
            for (name, mapping) in [(OP_ROWS, SpmmMapping::Rows), (OP_SPLIT, SpmmMapping::Split)] {
                let m = self.measure(
                    name,
                    Kind::Ablation,
                    &reference,
                    poison,
                    &mut || {
                        spmm_with(gpu, self.da, &db, k, &mut c.borrow_mut(), mapping)?;
                        Ok(())
                    },
                    output,
                );
                result.kernels.push(m);
            }
        }
        if variants {
            let chosen = spmm_plan(shape_of(gpu, self.da, k), SpmmMapping::Auto);
            for (name, plan) in plan_variants(chosen, k) {
                let m = match plan {
                    Some(plan) => self.measure(
                        name,
                        Kind::Ablation,
                        &reference,
                        poison,
                        &mut || {
                            Ok(spmm_with_plan(
                                gpu,
                                self.da,
                                &db,
                                k,
                                &mut c.borrow_mut(),
                                plan,
                            )?)
                        },
                        output,
                    ),
                    None => {
                        self.pb.inc(1);
                        continue;
                    }
                };
                result.kernels.push(m);
            }
        }
        for &s in schedules {
            let name = format!("schedule_{s}");
            let m = self.measure(
                &name,
                Kind::Handwritten,
                &reference,
                poison,
                &mut || {
                    Ok(kernels::spmm::launch(
                        s,
                        gpu,
                        self.da,
                        &db,
                        &mut c.borrow_mut(),
                        k,
                    )?)
                },
                output,
            );
            result.kernels.push(m);
        }
        for &s in lanes {
            let name = format!("{LANES}{s}");
            let m = self.measure(
                &name,
                Kind::Handwritten,
                &reference,
                poison,
                &mut || {
                    Ok(kernels::spmm::lanes::launch(
                        s,
                        gpu,
                        self.da,
                        &db,
                        &mut c.borrow_mut(),
                        k,
                    )?)
                },
                output,
            );
            result.kernels.push(m);
        }
        drop(c);
        for alg in SpMmAlg::ALL {
            let name = alg.kernel_name();
            let Some(cs) = cusparse else {
                self.pb.inc(1);
                continue;
            };
            let m = match SpMm::new(cs, gpu, self.da, &db, k, alg) {
                Ok(plan) => {
                    let plan = std::cell::RefCell::new(plan);
                    self.measure(
                        name,
                        Kind::Cusparse,
                        &reference,
                        &mut || Ok(plan.borrow_mut().fill_c(gpu, T::POISON)?),
                        &mut || Ok(plan.borrow_mut().run()?),
                        &mut || Ok(gpu.download(plan.borrow().c())?),
                    )
                }
                Err(e) => {
                    self.pb.inc(1);
                    Measurement::failed(name, Kind::Cusparse, e.to_string())
                }
            };
            result.kernels.push(m);
        }
        // A cuSPARSE algorithm that does not take this case is not a failure of ours.
        let any_cusparse = result
            .kernels
            .iter()
            .any(|m| m.kind == Kind::Cusparse && m.failure.is_none());
        if any_cusparse {
            result
                .kernels
                .retain(|m| m.kind != Kind::Cusparse || m.failure.is_none());
        }
        Ok(result)
    }

    pub(super) fn sddmm(
        &self,
        cusparse: Option<&Cusparse>,
        sddmm_language: &[&'static str],
    ) -> Result<MatrixResult, BoxError> {
        let (gpu, k) = (self.gpu, self.k);
        self.pb
            .set_message(format!("{} k={k}: x, y and the reference", self.name));
        let x: Vec<T> =
            loops::io::generate::random_vector(self.a.rows() * k, self.seed ^ (k as u64) << 32);
        let y: Vec<T> =
            loops::io::generate::random_vector(self.a.cols() * k, self.seed ^ (k as u64) << 40);
        let reference = DenseReference::sddmm(self.a, &x, &y, k, self.rows);
        self.pb.inc(1);
        let dx = gpu.upload(&x)?;
        let dy = gpu.upload(&y)?;
        drop((x, y));
        let mut result = self.result();
        let out = std::cell::RefCell::new(gpu.zeros::<T>(self.a.nnz())?);
        let m = self.measure(
            OP,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || Ok(self.da.sddmm(gpu, &dx, &dy, k, &mut out.borrow_mut())?),
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(m);
        // The language's SDDMM (`loops::ops::sddmm`, a `lanes` loop in the atom loop) under the
        // schedules that spread `k` over lanes, and the hand-written CUDA it is measured against.
        let cuda = self.measure(
            SDDMM_CUDA,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || {
                Ok(loops::ops::sddmm::sddmm(
                    gpu,
                    self.da,
                    &dx,
                    &dy,
                    k,
                    &mut out.borrow_mut(),
                )?)
            },
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(cuda);
        // The language's SDDMM as the op would run it (`sddmm_lang::sddmm`: `auto`, `flat`
        // among its candidates), then the op again.
        let lang = self.measure(
            SDDMM_LANG_OP,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || {
                Ok(loops::ops::sddmm_lang::sddmm(
                    gpu,
                    self.da,
                    &dx,
                    &dy,
                    k,
                    &mut out.borrow_mut(),
                )?)
            },
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(lang);
        let again = self.measure(
            SDDMM_OP_AFTER,
            Kind::Schedule,
            &reference,
            &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
            &mut || Ok(self.da.sddmm(gpu, &dx, &dy, k, &mut out.borrow_mut())?),
            &mut || Ok(gpu.download(&out.borrow())?),
        );
        result.kernels.push(again);
        for &s in sddmm_language {
            let m = self.measure(
                &format!("{SDDMM_LANG}{s}"),
                Kind::Schedule,
                &reference,
                &mut || Ok(gpu.fill(&mut out.borrow_mut(), T::POISON)?),
                &mut || {
                    if s.starts_with(SDDMM_FLAT) {
                        use loops::ops::sddmm_lang::dot::auto::sddmm as auto;
                        let c = auto::VARIANTS
                            .iter()
                            .position(|v| v.config.short_name() == s)
                            .ok_or("auto has no flat candidate")?;
                        let mut args = loops::launch::KernelArgs::new();
                        let mut o = out.borrow_mut();
                        args.csr(self.da)
                            .slice(&dx)
                            .slice(&dy)
                            .scalar(k)
                            .slice_mut(&mut o);
                        let call = loops::__private::Call::new("a", self.da, false);
                        return Ok(gpu.run_variant(
                            &auto::KERNEL,
                            c,
                            T::RUST_NAME,
                            call,
                            args,
                            false,
                        )?);
                    }
                    Ok(loops::ops::sddmm_lang::dot::launch(
                        s,
                        gpu,
                        self.da,
                        &dx,
                        &dy,
                        k,
                        &mut out.borrow_mut(),
                    )?)
                },
                &mut || Ok(gpu.download(&out.borrow())?),
            );
            result.kernels.push(m);
        }
        drop(out);
        let Some(cs) = cusparse else {
            self.pb.inc(1);
            return Ok(result);
        };
        let m = match Sddmm::new(cs, gpu, self.da, &dx, &dy, k) {
            Ok(plan) => {
                let plan = std::cell::RefCell::new(plan);
                self.measure(
                    SDDMM_KERNEL,
                    Kind::Cusparse,
                    &reference,
                    &mut || Ok(plan.borrow_mut().fill_out(gpu, T::POISON)?),
                    &mut || Ok(plan.borrow_mut().run()?),
                    &mut || Ok(gpu.download(plan.borrow().out())?),
                )
            }
            Err(e) => {
                self.pb.inc(1);
                Measurement::failed(SDDMM_KERNEL, Kind::Cusparse, e.to_string())
            }
        };
        result.kernels.push(m);
        Ok(result)
    }
}
