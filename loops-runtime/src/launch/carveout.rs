//! The split of each multiprocessor's unified L1 and shared memory that launches ask the driver for
//! (`CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`), a process-wide launch setting.
//!
//! Left alone (the default) nothing is asked and the driver picks the split from the kernel's
//! shared memory, which may leave a kernel that declares some (the staging of `work_oriented`,
//! `merge_path`, `lrb`'s block bins) less L1 than one that declares none, such as cuSPARSE's SpMV.
//! Issue 42 asked whether that is why relabelling a power-law graph by in-degree (which packs the
//! hub columns of `x` together) speeds cuSPARSE ALG1 up and the schedules not: `bench_spmv
//! --carveouts l1,shared` times every schedule under each split beside the driver's choice, in the
//! same run. Measured on an H200 (`examples/bench/results/h200/roofline2/README.md`): no. ALG1's
//! kernel runs under the same 132 KiB shared configuration as `work_oriented`, and the largest L1
//! ([`Carveout::MaxL1`]) shrinks shared memory to 16 KiB, a block per SM: 1.5-4.9x slower for
//! the schedules that stage through shared memory, unchanged for the others. So nothing is asked
//! by default and no schedule or `auto` picks a split; the setting is the benchmark's knob.
//!
//! [`set_carveout`] (or `LOOPS_CARVEOUT=driver|l1|shared|<percent>`) applies to every launch of a
//! generated kernel ([`crate::device::Gpu::launch`]) and of a hand-written one
//! ([`crate::device::Gpu::launch_function`]) from then on; a split once asked for is set on each
//! launched function every launch, so going back to [`Carveout::Driver`] resets it too. Results
//! are the same under every split: only the cache's size changes (the driver may still take more
//! shared memory than asked where the kernel needs it to run at all).

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// The L1 / shared-memory split a launch asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carveout {
    /// No preference: the driver's choice (`CU_SHAREDMEM_CARVEOUT_DEFAULT`, -1).
    Driver,
    /// As little shared memory as the kernel needs, the rest L1 (0 %).
    MaxL1,
    /// As much shared memory as the device has (100 %).
    MaxShared,
    /// This percentage (0 to 100) of the device's largest shared-memory carveout.
    Percent(u8),
}

impl Carveout {
    /// The attribute's value: -1 for [`Carveout::Driver`], else a percentage.
    pub fn attribute_value(self) -> i32 {
        match self {
            Carveout::Driver => -1,
            Carveout::MaxL1 => 0,
            Carveout::MaxShared => 100,
            Carveout::Percent(p) => p.min(100) as i32,
        }
    }

    /// From the attribute's value ([`Carveout::attribute_value`]'s inverse, values outside -1..=100
    /// clamped).
    fn from_value(v: i32) -> Carveout {
        match v {
            i32::MIN..=-1 => Carveout::Driver,
            0 => Carveout::MaxL1,
            100.. => Carveout::MaxShared,
            p => Carveout::Percent(p as u8),
        }
    }

    /// `driver` (or `default`), `l1`, `shared`, or a percentage `0`..=`100`.
    pub fn parse(text: &str) -> Option<Carveout> {
        match text.trim() {
            "driver" | "default" => Some(Carveout::Driver),
            "l1" => Some(Carveout::MaxL1),
            "shared" => Some(Carveout::MaxShared),
            p => match p.parse::<u8>() {
                Ok(p) if p <= 100 => Some(Carveout::Percent(p)),
                _ => None,
            },
        }
    }

    /// The short name [`Carveout::parse`] reads back (`driver`, `l1`, `shared`, `40`).
    pub fn name(self) -> String {
        match self {
            Carveout::Driver => "driver".to_string(),
            Carveout::MaxL1 => "l1".to_string(),
            Carveout::MaxShared => "shared".to_string(),
            Carveout::Percent(p) => p.to_string(),
        }
    }
}

/// Nothing set by [`set_carveout`] since the start (or since `set_carveout(None)`).
const UNSET: i32 = i32::MIN;

static OVERRIDE: AtomicI32 = AtomicI32::new(UNSET);
/// Whether any launch has been asked for a split (then every later launch sets one).
static TOUCHED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets the split every later launch of this process asks for (`None`: back to
/// `LOOPS_CARVEOUT`, or to the driver's choice where that is unset).
pub fn set_carveout(carveout: Option<Carveout>) {
    let value = carveout.map_or(UNSET, Carveout::attribute_value);
    if carveout.is_some() {
        TOUCHED.store(true, Ordering::Relaxed);
    }
    OVERRIDE.store(value, Ordering::Relaxed);
}

/// The split launches ask for now: [`set_carveout`]'s, else `LOOPS_CARVEOUT`'s; `None` where
/// neither was ever given (launches then leave the attribute alone).
pub fn carveout() -> Option<Carveout> {
    static FROM_ENV: OnceLock<Option<Carveout>> = OnceLock::new();
    match OVERRIDE.load(Ordering::Relaxed) {
        UNSET => {}
        v => return Some(Carveout::from_value(v)),
    }
    let env = *FROM_ENV.get_or_init(|| {
        std::env::var("LOOPS_CARVEOUT")
            .ok()
            .and_then(|v| Carveout::parse(&v))
    });
    env.or_else(|| TOUCHED.load(Ordering::Relaxed).then_some(Carveout::Driver))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_round_trip() {
        for c in [
            Carveout::Driver,
            Carveout::MaxL1,
            Carveout::MaxShared,
            Carveout::Percent(37),
        ] {
            assert_eq!(Carveout::parse(&c.name()), Some(c));
            assert_eq!(Carveout::from_value(c.attribute_value()), c);
        }
        assert_eq!(Carveout::Driver.attribute_value(), -1);
        assert_eq!(Carveout::MaxL1.attribute_value(), 0);
        assert_eq!(Carveout::MaxShared.attribute_value(), 100);
        assert_eq!(Carveout::Percent(250).attribute_value(), 100);
        assert_eq!(Carveout::parse("default"), Some(Carveout::Driver));
        assert_eq!(Carveout::parse("101"), None);
        assert_eq!(Carveout::parse("L1x"), None);
    }

    #[test]
    fn setting_and_going_back() {
        // The only test of this process that sets it.
        set_carveout(Some(Carveout::MaxL1));
        assert_eq!(carveout(), Some(Carveout::MaxL1));
        set_carveout(Some(Carveout::Percent(50)));
        assert_eq!(carveout(), Some(Carveout::Percent(50)));
        // Once asked, going back leaves the driver's choice asked for explicitly (the functions
        // already launched keep the last split otherwise).
        set_carveout(None);
        let back = carveout();
        assert!(
            back == Some(Carveout::Driver)
                || back.is_some() && std::env::var("LOOPS_CARVEOUT").is_ok(),
            "{back:?}"
        );
    }
}
