//! The time left of a long run (`synth`, an export), for the progress lines: from the
//! bytes done, measured from a point past the run's atypical start, and shown only once
//! enough is done to trust it.
//!
//! Issue 41 met what came before: `synth --scale full` extrapolated from the files written
//! once a tenth of them were ("about 8 s left", still "about 10 s left" two minutes later:
//! the stages, most of the bytes, come after the models), and the export's bar used
//! indicatif's recent-rate estimate ("ETA 2s" at 5 s of 9.4 s). Replayed on a recorded
//! full-disc run, the plain average rate by bytes since the start was still up to 95 % off
//! (`synth`: its model files, the first fifth of the bytes, cost about twice a stage's
//! time per byte; the export: the walk and the first containers' set-up). The rate is
//! therefore measured from the moment a share of the bytes is done ([`Eta::new`]'s
//! `measure_from`); the numbers are in the commit that added this module.

use std::time::Duration;

/// A share of the bytes, as `num / den`.
pub type Share = (u64, u64);

/// The export's rule: rate measured from a tenth of the bytes, shown from a quarter.
pub const EXPORT: (Share, Share) = ((1, 10), (1, 4));
/// `synth`'s rule: rate measured from a fifth (past the model files), shown from 40 %.
pub const SYNTH: (Share, Share) = ((1, 5), (2, 5));

/// The time-left estimate of one run.
#[derive(Clone, Debug)]
pub struct Eta {
    measure_from: Share,
    show_from: Share,
    /// Elapsed time and bytes done when `measure_from` was reached.
    anchor: Option<(Duration, u64)>,
}

fn reached(done: u64, total: u64, (num, den): Share) -> bool {
    (done as u128) * (den as u128) >= (total as u128) * (num as u128)
}

impl Eta {
    /// The rate is measured from when `measure_from` of the bytes are done; an estimate is
    /// given once `show_from` of them are (and some bytes since the anchor).
    pub fn new((measure_from, show_from): (Share, Share)) -> Eta {
        Eta {
            measure_from,
            show_from,
            anchor: None,
        }
    }

    /// Notes `done` of `total` bytes after `elapsed`; returns the time left, if it is
    /// shown yet: `None` before `show_from`, and once all is done.
    pub fn update(&mut self, done: u64, total: u64, elapsed: Duration) -> Option<Duration> {
        if done >= total {
            return None;
        }
        if self.anchor.is_none() && reached(done, total, self.measure_from) {
            self.anchor = Some((elapsed, done));
        }
        let (t0, d0) = self.anchor?;
        if !reached(done, total, self.show_from) || done <= d0 || elapsed <= t0 {
            return None;
        }
        let left = (elapsed - t0).as_secs_f64() * (total - done) as f64 / (done - d0) as f64;
        Some(Duration::from_secs_f64(left))
    }
}

/// `left` in words for a progress line: "about 8 s left", "about 3 min 20 s left" (to the
/// 10 s past a minute: the estimate is not finer than that).
pub fn words(left: Duration) -> String {
    let s = left.as_secs_f64().round() as u64;
    if s < 60 {
        format!("about {s} s left")
    } else {
        let s = (s + 5) / 10 * 10;
        match s % 60 {
            0 => format!("about {} min left", s / 60),
            r => format!("about {} min {r} s left", s / 60),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn none_before_the_share_shown_and_when_done() {
        let mut e = Eta::new(EXPORT);
        assert_eq!(e.update(0, 100, secs(1.0)), None);
        assert_eq!(e.update(10, 100, secs(2.0)), None, "anchor: 10 % at 2 s");
        assert_eq!(e.update(24, 100, secs(4.0)), None, "not a quarter yet");
        // 15 bytes in 1 s since the anchor, 75 to go: 5 s.
        assert_eq!(e.update(25, 100, secs(3.0)), Some(secs(5.0)));
        assert_eq!(e.update(100, 100, secs(9.0)), None);
        assert_eq!(Eta::new(EXPORT).update(5, 0, secs(1.0)), None);
    }

    #[test]
    fn the_rate_is_measured_from_the_anchor_not_the_start() {
        // A slow start (30 % in 6 s), then 10 % a second: the rest takes 6 s at the new rate.
        let mut e = Eta::new(SYNTH);
        assert_eq!(e.update(20, 100, secs(4.0)), None);
        assert_eq!(e.update(30, 100, secs(6.0)), None);
        let left = e.update(40, 100, secs(7.0)).unwrap();
        assert_eq!(left, secs(9.0), "(7 - 4) s × 60 / 20, not 7 s × 60 / 40");
        let left = e.update(70, 100, secs(10.0)).unwrap();
        assert_eq!(left, secs(3.6));
    }

    #[test]
    fn no_overflow_on_huge_totals() {
        let mut e = Eta::new(EXPORT);
        assert_eq!(e.update(u64::MAX / 4, u64::MAX, secs(1.0)), None);
        assert!(e.update(u64::MAX / 2, u64::MAX, secs(2.0)).is_some());
    }

    #[test]
    fn words_round_to_what_an_estimate_can_say() {
        assert_eq!(words(secs(7.6)), "about 8 s left");
        assert_eq!(words(secs(59.0)), "about 59 s left");
        assert_eq!(words(secs(64.0)), "about 1 min left");
        assert_eq!(words(secs(200.0)), "about 3 min 20 s left");
        assert_eq!(words(secs(236.0)), "about 4 min left");
    }
}
