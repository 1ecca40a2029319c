//! A solver's thread pool, whose helpers stay awake while decisions
//! follow one another.
//!
//! Rayon puts an idle worker to sleep within microseconds, and waking a
//! sleeping worker is the operating system's job. On a virtual machine an
//! idle vCPU is halted, and the wake-up often comes after the whole of an
//! early decision, so the second thread takes no part in it (measured in
//! docs/experiments/2026-11-23-keeping-the-helpers-awake.md). So when a
//! search starts, the helpers run a job
//! that looks for work instead of sleeping, until [`GRACE`] after it ends
//! (`Awake::spin` says when exactly they stop). They run the pool's jobs
//! as idle rayon workers do, so values and decisions are the same whether
//! they are awake or not.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::{ThreadPool, Yield};

/// How long after a search the helpers keep looking for work: longer than
/// the gap between a game's decisions (microseconds: a move, a spawn, a
/// record) and than clearing a bench's table, short enough that a paced
/// game (30 ms a move in the terminal) spins a few percent of a core.
const GRACE: Duration = Duration::from_millis(2);

/// How long a spinning job keeps starting new work: the bound on how long
/// it holds up a job it was started inside (below), but for the one piece
/// of work it runs last.
const MAX_SPIN: Duration = Duration::from_millis(20);

/// A solver's rayon pool and what keeps its helpers awake.
#[derive(Debug)]
pub(crate) struct Pool {
    threads: ThreadPool,
    awake: Arc<Awake>,
}

/// What the helpers' spinning jobs read.
#[derive(Debug)]
struct Awake {
    epoch: Instant,
    /// Nanoseconds after `epoch` until which the helpers spin: [`GRACE`]
    /// after the last search started or ended.
    until: AtomicU64,
    /// Per pool thread, whether a spinning job runs on it (or is queued
    /// for it): a thread gets a new one only when it has none. Per thread,
    /// because a job may stay on a thread's stack far longer than it spins
    /// (below), and that must not keep the other threads from getting one.
    spinning: Box<[AtomicBool]>,
}

impl Awake {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// A helper's job: run the pool's work as long as there is some, and
    /// look for more until [`GRACE`] after the last search started or ended.
    ///
    /// Rayon may start this job inside another that waits for a stolen
    /// half (a thread runs other jobs while it waits), and that job goes on
    /// only when this one returns; and `yield_now` may run any job of the
    /// pool here, a whole search or a caller's loop of decisions. So the
    /// job never waits for a search to end, which could then never end: it
    /// stops at the first moment it finds no work past `until`, which a
    /// running search does not move (only searches starting or ending do),
    /// and starts no new work after [`MAX_SPIN`].
    fn spin(&self) {
        let cap = self.now().saturating_add(MAX_SPIN.as_nanos() as u64);
        loop {
            let executed = matches!(rayon::yield_now(), Some(Yield::Executed));
            let now = self.now();
            if now >= cap || (!executed && now >= self.until.load(Ordering::Acquire)) {
                return;
            }
            if !executed {
                // Let other processes' threads run on a shared core.
                std::thread::yield_now();
            }
        }
    }
}

impl Pool {
    pub(crate) fn new(threads: ThreadPool) -> Pool {
        let spinning = (0..threads.current_num_threads()).map(|_| AtomicBool::new(false)).collect();
        let awake = Awake { epoch: Instant::now(), until: AtomicU64::new(0), spinning };
        Pool { threads, awake: Arc::new(awake) }
    }

    /// Runs `f` on the pool, starting no spinning job itself: for a
    /// caller's loop of decisions, each of which keeps the helpers awake.
    pub(crate) fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.threads.install(f)
    }

    /// Runs a search (or any parallel job) `f` on the pool, with the
    /// helpers woken for it and looking for work until [`GRACE`] after it.
    pub(crate) fn search<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.keep_awake();
        let result = self.threads.install(f);
        // The helpers may have stopped during a long search, at a moment
        // without work: start them again to span the gap to the next one.
        self.keep_awake();
        result
    }

    /// Moves `until` to [`GRACE`] from now (never back, when searches run
    /// at once), and queues a spinning job for every thread but the
    /// caller's that has none.
    fn keep_awake(&self) {
        let awake = &self.awake;
        awake
            .until
            .fetch_max(awake.now().saturating_add(GRACE.as_nanos() as u64), Ordering::AcqRel);
        // A search asked from outside the pool has no caller among them.
        let caller = self.threads.current_thread_index();
        // The threads this call gives a job: each flag is set by one call.
        let mine: Vec<bool> = (awake.spinning.iter().enumerate())
            .map(|(i, flag)| {
                Some(i) != caller
                    && !flag.load(Ordering::Acquire)
                    && !flag.swap(true, Ordering::AcqRel)
            })
            .collect();
        if !mine.contains(&true) {
            return;
        }
        let shared = Arc::clone(awake);
        self.threads.spawn_broadcast(move |ctx| {
            if mine[ctx.index()] {
                shared.spin();
                shared.spinning[ctx.index()].store(false, Ordering::Release);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;

    fn pool(threads: usize) -> Pool {
        Pool::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool"))
    }

    /// Waits (at most ten seconds, far past GRACE) for the helpers to stop.
    fn stopped(pool: &Pool) -> bool {
        let start = Instant::now();
        while pool.awake.spinning.iter().any(|f| f.load(Ordering::Acquire)) {
            if start.elapsed() > Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(GRACE);
        }
        true
    }

    /// Searches asked from outside the pool and from one of its threads
    /// return their results, and the spinning jobs end after them, so that
    /// an idle solver leaves its threads asleep.
    #[test]
    fn searches_return_and_the_helpers_stop_after_them() {
        let pool = pool(3);
        let sum = |n: u64| (0..n).into_par_iter().map(|i| i * i).sum::<u64>();
        assert_eq!(pool.search(|| sum(1000)), 332_833_500);
        assert!(stopped(&pool), "helpers still spinning after a search from outside");
        let results = pool.run(|| (0..50).map(|_| pool.search(|| sum(100))).collect::<Vec<_>>());
        assert_eq!(results, vec![328_350; 50]);
        assert!(stopped(&pool), "helpers still spinning after searches from the pool");
    }
}
