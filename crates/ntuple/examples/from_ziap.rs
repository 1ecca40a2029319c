//! Reads a weights file of ziap/2048-tdl's `nw4x6` network (four tables of
//! 16^6 little-endian `f32`, its tuples in the order of ours) and writes it
//! as one of ours, so that its network can be judged under our search, on
//! our seeds, beside ours.
//!
//! The tuples are the same cells; only the index differs: theirs reads the
//! cells with the first cell in the top nibble (`pext` over a board whose
//! top-left cell is the top nibble), ours with the first cell in the low
//! nibble. Both sum the eight symmetries with one table per tuple.
//!
//! `from_ziap IN OUT EPISODES`, or `from_ziap IN --values` to print the
//! value of each board read from stdin (16 tile values a line, row-major).

use std::io::{BufRead, Read, Write};
use std::path::Path;

use game_core::Board;
use ntuple::{N_WEIGHTS, Network, TUPLE_ENTRIES, TUPLE_LEN};

const USAGE: &str = "usage: from_ziap IN OUT EPISODES | from_ziap IN --values";

fn reverse_nibbles(i: usize) -> usize {
    (0..TUPLE_LEN).fold(0, |r, k| r | (i >> (4 * k) & 0xF) << (4 * (TUPLE_LEN - 1 - k)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, rest @ ..] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let mut bytes = Vec::new();
    std::fs::File::open(input)?.read_to_end(&mut bytes)?;
    if bytes.len() != N_WEIGHTS * 4 {
        return Err(format!(
            "{input}: {} bytes, not a 4x6 network's {}",
            bytes.len(),
            N_WEIGHTS * 4
        )
        .into());
    }
    let theirs =
        |i: usize| f32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    // Tuple t's table starts at the same place in both files.
    let weights = (0..N_WEIGHTS).map(|w| {
        let (t, i) = (w / TUPLE_ENTRIES, w % TUPLE_ENTRIES);
        theirs(t * TUPLE_ENTRIES + reverse_nibbles(i))
    });
    let net = Network::from_weights(weights).ok_or("shape")?;
    match rest {
        [flag] if flag == "--values" => {
            let mut out = std::io::stdout().lock();
            for line in std::io::stdin().lock().lines() {
                let tiles: Vec<String> = line?.split_whitespace().map(str::to_owned).collect();
                let rows: Vec<String> = tiles.chunks(4).map(|r| r.join(" ")).collect();
                let board: Board = rows.join("/").parse()?;
                writeln!(out, "{:.3}", net.value(board))?;
            }
        }
        [out, episodes] => ntuple::save_weights(&net, episodes.parse()?, Path::new(out))?,
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
