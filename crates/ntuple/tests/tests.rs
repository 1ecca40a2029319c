//! The network's files and its trainer, through the public API: round
//! trips, damaged files, reproducible training, and training that helps.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use game_core::{Board, Game, Rules};
use ntuple::{
    Counters, FileErrorKind, N_WEIGHTS, Network, SCALE, TrainConfig, Trainer, load_checkpoint,
    load_weights, save_checkpoint, save_weights,
};

/// A scratch file that is removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        Scratch(std::env::temp_dir().join(format!("ntuple-test-{}-{name}", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A network where one weight in 64 is set, to values of every size and
/// sign, the rest unvisited: what a trained network looks like to the file.
fn sparse_network() -> Network {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    Network::from_weights((0..N_WEIGHTS).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(64) { ((x >> 8) % 2_000_000) as f32 / 7.0 - 140_000.0 } else { 0.0 }
    }))
    .expect("right size")
}

fn trained(episodes: u64) -> Trainer {
    let mut config = TrainConfig::standard();
    config.threads = 1;
    config.episodes = Some(episodes);
    let trainer = Trainer::new(config, Network::filled(0.0), Counters::default()).expect("valid");
    trainer.run(&AtomicBool::new(false));
    trainer
}

#[test]
fn weights_round_trip_within_half_a_step() {
    let net = sparse_network();
    let file = Scratch::new("round-trip.n2048");
    save_weights(&net, 1234, &file.0).expect("written");
    let back = load_weights(&file.0).expect("read");
    assert_eq!(back.episodes, 1234);
    for (a, b) in net.weights().zip(back.network.weights()) {
        assert!((a - b).abs() <= 0.5 / SCALE + a.abs() * f32::EPSILON, "{a} -> {b}");
    }
}

#[test]
fn damaged_weights_files_are_errors() {
    let file = Scratch::new("damaged.n2048");
    save_weights(&sparse_network(), 1, &file.0).expect("written");
    let good = std::fs::read(&file.0).expect("readable");
    let check = |bytes: &[u8]| {
        std::fs::write(&file.0, bytes).expect("writable");
        load_weights(&file.0).expect_err("must be refused")
    };
    let truncated = check(&good[..good.len() - 100]);
    assert!(matches!(truncated.kind(), FileErrorKind::Truncated), "{truncated}");
    assert!(truncated.to_string().contains("truncated"));
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let corrupt = check(&flipped);
    assert!(matches!(corrupt.kind(), FileErrorKind::Corrupt(_)), "{corrupt}");
    let mut magic = good.clone();
    magic[0] = b'X';
    assert!(matches!(check(&magic).kind(), FileErrorKind::NotOurs(_)));
    let mut version = good.clone();
    version[8] = 9;
    assert!(matches!(check(&version).kind(), FileErrorKind::Version(9)));
    let mut shape = good;
    shape[12] = 8;
    assert!(matches!(check(&shape).kind(), FileErrorKind::Shape));
    let missing = load_weights(&std::env::temp_dir().join("no-such-file.n2048")).unwrap_err();
    assert!(matches!(missing.kind(), FileErrorKind::Io(_)));
}

#[test]
fn a_checkpoint_resumes_training_exactly() {
    // 150 episodes straight, against 100 then a checkpoint then 50 more.
    let straight = trained(150);
    let first = trained(100);
    let file = Scratch::new("resume.ckpt");
    save_checkpoint(&first, &file.0).expect("written");
    let cp = load_checkpoint(&file.0).expect("read");
    assert!(cp.has_coherence());
    assert_eq!(cp.counters.episodes, 100);
    let mut config = *first.config();
    config.episodes = Some(150);
    let resumed = cp.into_trainer(config).expect("valid");
    resumed.run(&AtomicBool::new(false));
    assert_eq!(resumed.counters().episodes, 150);
    assert_eq!(resumed.counters().moves, straight.counters().moves);
    assert!(straight.network().weights().eq(resumed.network().weights()));
}

#[test]
fn a_damaged_checkpoint_is_an_error() {
    let trainer = trained(5);
    let file = Scratch::new("damaged.ckpt");
    save_checkpoint(&trainer, &file.0).expect("written");
    let mut bytes = std::fs::read(&file.0).expect("readable");
    let at = bytes.len() / 3;
    bytes[at] ^= 1;
    std::fs::write(&file.0, &bytes).expect("writable");
    let err = load_checkpoint(&file.0).unwrap_err();
    assert!(matches!(err.kind(), FileErrorKind::Corrupt(_)), "{err}");
    std::fs::write(&file.0, &bytes[..bytes.len() / 2]).expect("writable");
    assert!(matches!(load_checkpoint(&file.0).unwrap_err().kind(), FileErrorKind::Truncated));
}

#[test]
fn one_thread_trains_the_same_network_bit_for_bit() {
    let (a, b) = (trained(60), trained(60));
    assert_eq!(a.counters().moves, b.counters().moves);
    assert!(a.network().weights().map(f32::to_bits).eq(b.network().weights().map(f32::to_bits)));
}

/// The mean score of greedy play by `net` over seeds 1..=n.
fn greedy_mean(net: &Network, n: u64) -> f64 {
    let mut total = 0;
    for seed in 1..=n {
        let mut game = Game::<Board>::new(Rules::default(), seed).expect("4x4");
        while let Some(best) = net.best_move(*game.board()) {
            game.play(best.direction).expect("legal");
        }
        total += game.score();
    }
    total as f64 / n as f64
}

#[test]
fn a_short_training_run_makes_greedy_play_better() {
    let untrained = greedy_mean(&Network::filled(0.0), 20);
    let trainer = trained(400);
    let learned = greedy_mean(trainer.network(), 20);
    // Measured: about 1,000 untrained (it always takes the first legal
    // direction), several thousand after 400 episodes.
    assert!(learned > 2.0 * untrained, "untrained {untrained}, trained {learned}");
}

#[test]
fn training_resumes_from_a_weights_file_or_a_checkpoint() {
    let trainer = trained(30);
    let weights = Scratch::new("resumable.n2048");
    save_weights(trainer.network(), 30, &weights.0).expect("written");
    let from_weights = ntuple::load_resumable(&weights.0).expect("a weights file");
    assert_eq!(from_weights.counters.episodes, 30);
    assert!(!from_weights.has_coherence(), "a weights file carries no TC state");
    let checkpoint = Scratch::new("resumable.ckpt");
    save_checkpoint(&trainer, &checkpoint.0).expect("written");
    let from_checkpoint = ntuple::load_resumable(&checkpoint.0).expect("a checkpoint");
    assert!(from_checkpoint.has_coherence());
    assert_eq!(from_checkpoint.counters, trainer.counters());
    // Training goes on from the weights file's episode count.
    let mut config = *trainer.config();
    config.episodes = Some(40);
    let more = from_weights.into_trainer(config).expect("valid");
    more.run(&AtomicBool::new(false));
    assert_eq!(more.counters().episodes, 40);
    std::fs::write(&weights.0, b"nonsense").expect("writable");
    let err = ntuple::load_resumable(&weights.0).unwrap_err();
    assert!(matches!(err.kind(), FileErrorKind::NotOurs(_)), "{err}");
}

/// A tile past 32768 enters the network as 32768 (its cell reads 15), on
/// every symmetry: every feature index stays inside its tuple's table, and
/// the value is the clamped board's. See: issue 13.
#[test]
fn tiles_past_32768_are_clamped() {
    let net = sparse_network();
    let pairs = [
        ("65536 2 0 0/0 0 0 0/0 0 4 0/0 0 0 0", "32768 2 0 0/0 0 0 0/0 0 4 0/0 0 0 0"),
        (
            "131072 65536 32768 2/4 8 0 0/0 0 0 0/0 0 0 2",
            "32768 32768 32768 2/4 8 0 0/0 0 0 0/0 0 0 2",
        ),
    ];
    for (big, clamped) in pairs {
        let big: Board = big.parse().expect("a board");
        let clamped: Board = clamped.parse().expect("a board");
        assert!(!big.is_packed());
        let features = ntuple::features(big);
        assert_eq!(features, ntuple::features(clamped));
        assert!(features.iter().all(|&i| (i as usize) < N_WEIGHTS));
        assert_eq!(net.value(big).to_bits(), net.value(clamped).to_bits());
    }
}
