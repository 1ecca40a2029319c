//! The network's files and its trainer, through the public API: round
//! trips, damaged files, reproducible training, and training that helps.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use game_core::{Board, Game, Rules};
use ntuple::{
    Counters, FileErrorKind, N_WEIGHTS, Network, StageError, Step, TrainConfig, Trainer,
    load_checkpoint, load_weights, save_checkpoint, save_weights, save_weights_at,
};

/// Half the shipped quantisation step: how far a weight may move in a file.
const HALF_STEP: f32 = 4.0;

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
    sparse_network_of(1)
}

/// The same with `stages` stages, each with its own weights.
fn sparse_network_of(stages: usize) -> Network {
    Network::from_weights(sparse_weights(stages)).expect("right size")
}

/// The weights of [`sparse_network_of`], made again one by one: a test
/// compares a network read back with them rather than keep a second
/// network of a quarter GiB a stage alive.
fn sparse_weights(stages: usize) -> impl ExactSizeIterator<Item = f32> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..stages * N_WEIGHTS).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(64) { ((x >> 8) % 2_000_000) as f32 / 7.0 - 140_000.0 } else { 0.0 }
    })
}

/// A digest of every weight's bits, in order: two networks that agree bit
/// for bit have the same one, and a test can keep it in place of the
/// network (FNV-1a over the bits).
fn digest(net: &Network) -> u64 {
    net.weights()
        .map(f32::to_bits)
        .fold(0xCBF2_9CE4_8422_2325, |h, bits| (h ^ u64::from(bits)).wrapping_mul(0x0100_0000_01B3))
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
    let file = Scratch::new("round-trip.n2048");
    save_weights(&sparse_network(), 1234, &file.0).expect("written");
    let back = load_weights(&file.0).expect("read");
    assert_eq!(back.episodes, 1234);
    for (a, b) in sparse_weights(1).zip(back.network.weights()) {
        assert!((a - b).abs() <= HALF_STEP + a.abs() * f32::EPSILON, "{a} -> {b}");
    }
}

/// Every step a file can be read at round-trips within half of it, for
/// every stage, the file says which step it holds, and a coarser step
/// makes a smaller file; other steps are refused.
#[test]
fn weights_round_trip_at_every_readable_step() {
    let file = Scratch::new("steps.n2048");
    let mut sizes = Vec::new();
    for text in ["1/256", "16"] {
        let step: Step = text.parse().expect("a readable step");
        assert_eq!(step.to_string(), text);
        save_weights_at(&sparse_network_of(2), 5, step, &file.0).expect("written");
        let back = load_weights(&file.0).expect("read");
        assert_eq!((back.step, back.network.stages()), (step, 2));
        let half = 0.5 * step.in_points();
        for (a, b) in sparse_weights(2).zip(back.network.weights()) {
            assert!((a - b).abs() <= half + a.abs() * f32::EPSILON, "{a} -> {b}");
        }
        sizes.push(std::fs::metadata(&file.0).expect("written").len());
    }
    assert!(sizes[1] < sizes[0], "{sizes:?}");
    assert_eq!(Step::points(8.0), Some(Step::SHIPPED));
    assert_eq!(
        (Step::SHIPPED.to_string(), Step::SHIPPED.in_points()),
        ("8".to_owned(), HALF_STEP * 2.0)
    );
    assert_eq!(" 1 / 2 ".parse(), Ok(Step::points(0.5).expect("readable")));
    for bad in ["0", "-8", "3", "32", "1/512", "1/0", "1/", "", "x", "NaN", "inf"] {
        assert!(bad.parse::<Step>().is_err(), "{bad}");
    }
}

/// A records file names its network by path and this checksum: two
/// networks of one size must differ in it, one network must not.
#[test]
fn the_header_checksum_tells_networks_apart() {
    let (a, b) = (Scratch::new("sum-a.n2048"), Scratch::new("sum-b.n2048"));
    save_weights(&sparse_network(), 1, &a.0).expect("written");
    save_weights(&Network::filled(0.0), 1, &b.0).expect("written");
    let sum_a = ntuple::weights_checksum(&a.0).expect("a weights file");
    assert_ne!(sum_a, ntuple::weights_checksum(&b.0).expect("a weights file"));
    save_weights(&sparse_network(), 99, &b.0).expect("written");
    assert_eq!(ntuple::weights_checksum(&b.0).expect("a weights file"), sum_a);
    std::fs::write(&b.0, b"N2048NET").expect("writable");
    assert!(ntuple::weights_checksum(&b.0).is_err());
    std::fs::write(&b.0, b"not a weights file at all").expect("writable");
    assert!(ntuple::weights_checksum(&b.0).is_err());
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
    // 150 episodes straight, against 100 then a checkpoint then 50 more;
    // one trainer (over half a GiB with its TC state) alive at a time.
    let straight = trained(150);
    let (moves, weights) = (straight.counters().moves, digest(straight.network()));
    drop(straight);
    let first = trained(100);
    let file = Scratch::new("resume.ckpt");
    save_checkpoint(&first, &file.0).expect("written");
    let mut config = *first.config();
    drop(first);
    let cp = load_checkpoint(&file.0).expect("read");
    assert!(cp.has_coherence());
    assert_eq!(cp.counters.episodes, 100);
    config.episodes = Some(150);
    let resumed = cp.into_trainer(config).expect("valid");
    resumed.run(&AtomicBool::new(false));
    assert_eq!(resumed.counters().episodes, 150);
    assert_eq!(resumed.counters().moves, moves);
    assert_eq!(digest(resumed.network()), weights);
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
    // Inside the compressed body: corrupt, or truncated if the bit lands in
    // a frame's length.
    assert!(matches!(err.kind(), FileErrorKind::Corrupt(_) | FileErrorKind::Truncated), "{err}");
    std::fs::write(&file.0, &bytes[..bytes.len() / 2]).expect("writable");
    assert!(matches!(load_checkpoint(&file.0).unwrap_err().kind(), FileErrorKind::Truncated));
}

#[test]
fn one_thread_trains_the_same_network_bit_for_bit() {
    let a = trained(60);
    let (moves, weights) = (a.counters().moves, digest(a.network()));
    drop(a);
    let b = trained(60);
    assert_eq!((b.counters().moves, digest(b.network())), (moves, weights));
}

/// The mean score of greedy play by `net` over seeds 1..=n.
fn greedy_mean(net: &Network, n: u64) -> f64 {
    let mut total = 0;
    for seed in 1..=n {
        let mut game = Game::new(Rules::default(), seed);
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
    let (counters, mut config) = (trainer.counters(), *trainer.config());
    drop(trainer);
    let from_checkpoint = ntuple::load_resumable(&checkpoint.0).expect("a checkpoint");
    assert!(from_checkpoint.has_coherence());
    assert_eq!(from_checkpoint.counters, counters);
    drop(from_checkpoint);
    // A checkpoint where a weights file belongs says what to do with it.
    let err = ntuple::load_weights(&checkpoint.0).unwrap_err();
    assert!(matches!(err.kind(), FileErrorKind::Checkpoint), "{err}");
    assert!(err.to_string().contains("export-weights"), "{err}");
    // Training goes on from the weights file's episode count.
    config.episodes = Some(40);
    let more = from_weights.into_trainer(config).expect("valid");
    more.run(&AtomicBool::new(false));
    assert_eq!(more.counters().episodes, 40);
    std::fs::write(&weights.0, b"nonsense").expect("writable");
    let err = ntuple::load_resumable(&weights.0).unwrap_err();
    assert!(matches!(err.kind(), FileErrorKind::NotOurs(_)), "{err}");
    std::fs::write(&weights.0, b"N2048").expect("writable");
    let err = ntuple::load_resumable(&weights.0).unwrap_err();
    assert!(matches!(err.kind(), FileErrorKind::NotOurs(_)), "shorter than a magic: {err}");
}

/// A tile past 32768 enters the network as 32768 (its cell reads 15), on
/// every symmetry: every feature index stays inside its tuple's table, and
/// the value is the clamped board's (a 65536 must not index past a table).
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

/// Random boards: every cell any exponent up to 15, so that most (1 -
/// (14/16)^16, 88%) hold a 16384 or 32768 (stage 1), and the rest not.
fn random_boards(n: usize) -> Vec<Board> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Board::from_raw(x)
        })
        .collect()
}

/// The stage boundaries: a board is stage 1 from its first 16384 on, and
/// stage 2 while it also holds another tile of 8192 or more; tiles past
/// 32768 count as 32768.
#[test]
fn a_board_is_stage_1_from_its_first_16384_and_stage_2_with_an_8192_beside_it() {
    let stage = |b: &str| ntuple::stage(b.parse().expect("a board"));
    assert_eq!(ntuple::STAGE_EXPONENT, 14);
    assert_eq!(stage("0 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"), 0);
    assert_eq!(stage("8192 8192 4096 2048/1024 512 256 128/64 32 16 8/4 2 2 4"), 0);
    assert_eq!(stage("16384 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2"), 1);
    assert_eq!(stage("2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 16384"), 1);
    assert_eq!(stage("2 4 2 4/4 2 32768 2/2 4 2 4/4 2 4 2"), 1);
    assert_eq!(stage("16384 4096 4096 2048/0 0 0 0/0 0 0 0/0 0 0 2"), 1);
    assert_eq!(stage("16384 8192 0 0/0 0 0 0/0 0 0 0/0 0 0 2"), 2);
    assert_eq!(stage("2 0 0 0/0 0 0 0/0 0 0 0/8192 2 4 32768"), 2);
    assert_eq!(stage("32768 16384 0 0/0 0 0 0/0 0 0 0/0 0 0 2"), 2);
    let past: Board = "65536 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0".parse().expect("a board");
    assert!(!past.is_packed());
    assert_eq!(ntuple::stage(past), 1);
    assert_eq!(stage("131072 65536 4 2/0 0 0 0/0 0 0 0/0 0 0 0"), 2);
}

/// Promotion copies every weight: right after it a 2- or 3-stage network
/// values every board bit for bit as its source did, in every stage, and
/// each board reads its own stage's weights (a 2-stage network's stage 1
/// for stage-2 boards).
#[test]
fn a_promoted_network_values_every_board_as_before() {
    let boards = random_boards(20_000);
    let mut in_stage = [0; ntuple::MAX_STAGES];
    for &board in &boards {
        in_stage[ntuple::stage(board)] += 1;
    }
    // Random boards: about 12% in stage 0, 9% in stage 1, the rest in 2.
    assert!(in_stage.iter().all(|&n| n > 1000), "{in_stage:?}");
    // The source's values and features, kept in place of the source: one
    // network alive at a time.
    let one = sparse_network();
    let seen: Vec<_> = boards.iter().map(|&b| (one.value(b).to_bits(), one.features(b))).collect();
    drop(one);
    for (from, to) in [(1, 2), (1, 3), (2, 3)] {
        let before = sparse_network().into_stages(from).expect("promotes");
        assert_eq!(before.stages(), from);
        let after = before.into_stages(to).expect("promotes");
        assert_eq!(after.stages(), to);
        for (&board, (value, f1)) in boards.iter().zip(&seen) {
            assert_eq!(*value, after.value(board).to_bits(), "{board}");
            let f2 = after.features(board);
            let offset = (ntuple::stage(board).min(to - 1) * N_WEIGHTS) as u32;
            assert!(f1.iter().zip(&f2).all(|(&a, &b)| b == a + offset), "{board}");
        }
    }
    // The same count gives the network back; fewer is an error.
    let two = sparse_network().into_stages(2).expect("1 -> 2");
    let two = two.into_stages(2).expect("2 -> 2");
    assert_eq!(two.into_stages(1).unwrap_err(), StageError::Fewer { from: 2, to: 1 });
    assert!(matches!(Network::filled_stages(4, 0.0), Err(StageError::Unsupported(4))));
    assert!(matches!(Network::filled_stages(0, 0.0), Err(StageError::Unsupported(0))));
}

/// Networks of 2 and 3 stages whose stages differ survive the compact file
/// within half a quantisation step, each stage stored against the one
/// before it.
#[test]
fn networks_of_several_stages_round_trip_through_the_weights_file() {
    for stages in [2, 3] {
        let file = Scratch::new("stages.n2048");
        save_weights(&sparse_network_of(stages), 77, &file.0).expect("written");
        let back = load_weights(&file.0).expect("read");
        assert_eq!((back.network.stages(), back.episodes), (stages, 77));
        for (a, b) in sparse_weights(stages).zip(back.network.weights()) {
            assert!((a - b).abs() <= HALF_STEP + a.abs() * f32::EPSILON, "{a} -> {b}");
        }
        drop(back);
        // The stages come right after the shape (48 bytes in): the count,
        // then 14 (a 16384) and 14, 13 (a 16384 and an 8192). A count or a
        // boundary this build does not know is refused.
        let good = std::fs::read(&file.0).expect("readable");
        let want: &[u8] = match stages {
            2 => &[2, 0, 0, 0, 14, 0, 0, 0],
            _ => &[3, 0, 0, 0, 14, 0, 0, 0, 14, 13, 0, 0],
        };
        assert_eq!(&good[48..48 + want.len()], want);
        let mut edits = vec![(48, 4), (48, 0), (52, 13)];
        if stages == 3 {
            edits.extend([(57, 12), (56, 13), (48, 2)]);
        }
        for (at, value) in edits {
            let mut bad = good.clone();
            bad[at] = value;
            std::fs::write(&file.0, &bad).expect("writable");
            let err = load_weights(&file.0).unwrap_err();
            assert!(
                matches!(err.kind(), FileErrorKind::Stages | FileErrorKind::Corrupt(_)),
                "{stages} stages, byte {at}: {err}"
            );
        }
    }
}

/// A promoted but untrained network's stage 1 is all zero differences:
/// it costs next to nothing in the file.
#[test]
fn a_promoted_stage_costs_next_to_nothing_in_the_file() {
    let file = Scratch::new("promoted.n2048");
    save_weights(&sparse_network(), 1, &file.0).expect("written");
    let one = std::fs::metadata(&file.0).expect("written").len();
    save_weights(&sparse_network().into_stages(2).expect("1 -> 2"), 1, &file.0).expect("written");
    let two = std::fs::metadata(&file.0).expect("written").len();
    assert!(two < one + one / 100, "1 stage: {one} bytes, promoted to 2: {two} bytes");
    assert_eq!(load_weights(&file.0).expect("read").network.stages(), 2);
}

/// The shipped file is a trained network: format version 2, an opening
/// worth thousands, and a late game it has learned: the tiles of a 16384
/// chain ordered along the snake are worth far more than the same tiles
/// scattered (an untrained network values both alike). (Files of version 1
/// and the old scale still load: `weights.rs` tests.)
#[test]
fn the_shipped_file_is_a_trained_network() {
    let path = std::path::Path::new(ntuple::SHIPPED_WEIGHTS);
    let head = std::fs::read(path).expect("the shipped file is in the repository");
    assert_eq!(&head[..12], b"N2048NET\x02\x00\x00\x00", "the shipped file is version 2");
    let weights = load_weights(path).expect("the shipped file loads");
    assert!(weights.episodes > 100_000, "{}", weights.episodes);
    let value = |board: &str| weights.network.value(board.parse::<Board>().expect("a board"));
    let opening = value("2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 2");
    assert!(opening > 1000.0, "{opening}");
    // The same sixteen cells, one of them empty, in two orders.
    let ordered = value("16384 8192 4096 2048/128 256 512 1024/64 32 16 8/2 4 0 2");
    let scattered = value("16384 64 4096 8/2 1024 32 2048/8192 16 512 4/128 2 256 0");
    assert!(ordered > scattered + 10_000.0, "ordered {ordered}, scattered {scattered}");
}

/// A 2-stage checkpoint holds both stages exactly, and says so.
#[test]
fn a_two_stage_checkpoint_round_trips_exactly() {
    let mut config = TrainConfig::standard();
    config.threads = 1;
    // Without TC state: 512 MiB of weights are enough to check the format.
    config.coherence = false;
    let trainer = Trainer::new(config, sparse_network_of(2), Counters::default()).expect("valid");
    let file = Scratch::new("two-stages.ckpt");
    save_checkpoint(&trainer, &file.0).expect("written");
    drop(trainer);
    let cp = load_checkpoint(&file.0).expect("read");
    assert_eq!(cp.network.stages(), 2);
    assert!(!cp.has_coherence());
    assert!(sparse_weights(2).map(f32::to_bits).eq(cp.network.weights().map(f32::to_bits)));
    drop(cp);
    // A checkpoint cut short is truncated.
    let bytes = std::fs::read(&file.0).expect("readable");
    std::fs::write(&file.0, &bytes[..bytes.len() / 2]).expect("writable");
    assert!(matches!(load_checkpoint(&file.0).unwrap_err().kind(), FileErrorKind::Truncated));
}
