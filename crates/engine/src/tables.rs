//! The endgame tables' files, mapped into memory and opened once per
//! process.
//!
//! A full table is gigabytes (the corner preset's two are 6.7 GB). Read
//! into each program's memory, every program that plays them held its own
//! copy, and `compare` of two corner players two. Mapped, the programs
//! that play one folder share one copy, the kernel's page cache, which
//! holds only the pages that lookups touched and gives them back under
//! pressure; and a process asked twice for the same tables while it holds
//! them gets the same ones.

use std::fmt;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use solver_expectimax::Preset;
use solver_expectimax::endgame::{
    self, Check, Endgame, EndgameError, Formation, OpenEvent, Opening, TableBytes,
};

/// Tables this process opened: their folder (resolved), their formations
/// (sorted) and the tables, while someone holds them.
type Opened = (PathBuf, Vec<Formation>, Weak<Endgame>);

/// The tables of `formations` in the folder `dir`, read and checked (as
/// `check` says) or built there: [`Endgame::open`], their files mapped.
/// While this process holds tables opened from the same folder with the
/// same formations, it gets those again, unopened (but for
/// [`Check::Full`], which checks the files again).
///
/// # Errors
/// [`EndgameError`] as [`Endgame::open`].
pub fn open_tables(
    dir: &Path,
    formations: &[Formation],
    check: Check,
    event: &(dyn Fn(OpenEvent<'_>) + Sync),
) -> Result<Arc<Endgame>, EndgameError> {
    static OPENED: Mutex<Vec<Opened>> = Mutex::new(Vec::new());
    let mut key = formations.to_vec();
    key.sort();
    key.dedup();
    // Held while opening, so that two threads asking at once for tables
    // still to build build them once.
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    opened.retain(|(_, _, tables)| tables.strong_count() > 0);
    let same = |folder: &Path| {
        let found = opened.iter().find(|(d, f, _)| d == folder && *f == key);
        found.and_then(|(_, _, tables)| tables.upgrade())
    };
    if check == Check::Stamped
        && let Some(tables) = fs::canonicalize(dir).ok().and_then(|d| same(&d))
    {
        return Ok(tables);
    }
    let opening = Opening { hold: &map, check, free_space: &free_space };
    let tables = Arc::new(Endgame::open(dir, formations, opening, event)?);
    // The folder exists now: `Endgame::open` made it.
    if let Ok(folder) = fs::canonicalize(dir) {
        opened.push((folder, key, Arc::downgrade(&tables)));
    }
    Ok(tables)
}

/// The endgame tables' folder: `given`, or `cli-ascii-2048/endgame` in the
/// user's cache folder, shared by every frontend so that one build serves
/// them all; `None` when there is neither.
pub fn tables_dir(given: Option<&Path>) -> Option<PathBuf> {
    match given {
        Some(dir) => Some(dir.to_path_buf()),
        None => dirs::cache_dir().map(|dir| dir.join(endgame::CACHE_FOLDER)),
    }
}

/// The endgame tables `preset` plays by (of at most `max_states` states
/// when given): the corner tables for the corner presets (with the big step
/// table for corner-big), whose formations its heuristic keeps, the chains'
/// for the others (docs/endgame.md).
pub fn formations_for(preset: Preset, max_states: Option<u64>) -> Vec<Formation> {
    match preset {
        Preset::CornerBig => endgame::corner_big_formations(max_states),
        p if p.uses_corner_tables() => endgame::corner_formations(max_states),
        _ => endgame::default_formations(max_states),
    }
}

/// Why [`open_preset_tables`] has no tables.
#[derive(Debug)]
pub enum PresetTablesError {
    /// No folder was given and the system has no cache folder.
    NoFolder,
    /// The folder's tables could not be read, checked or built.
    Endgame(EndgameError),
}

impl fmt::Display for PresetTablesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PresetTablesError::NoFolder => {
                write!(f, "this system has no cache folder to keep the endgame tables in")
            }
            PresetTablesError::Endgame(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PresetTablesError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PresetTablesError::NoFolder => None,
            PresetTablesError::Endgame(e) => Some(e),
        }
    }
}

/// The endgame tables `preset` plays by ([`formations_for`], of at most
/// `max_states` states when given) from the folder `given`, else the
/// default one ([`tables_dir`]), opened by [`open_tables`], and that
/// folder: how every frontend opens a preset's tables, each hearing
/// `event` (a progress line, log lines or nothing) in its own way.
///
/// # Errors
/// [`PresetTablesError`]: no folder, or [`open_tables`]'s error.
pub fn open_preset_tables(
    preset: Preset,
    given: Option<&Path>,
    max_states: Option<u64>,
    check: Check,
    event: &(dyn Fn(OpenEvent<'_>) + Sync),
) -> Result<(PathBuf, Arc<Endgame>), PresetTablesError> {
    let dir = tables_dir(given).ok_or(PresetTablesError::NoFolder)?;
    let formations = formations_for(preset, max_states);
    let tables =
        open_tables(&dir, &formations, check, event).map_err(PresetTablesError::Endgame)?;
    Ok((dir, tables))
}

/// The bytes free for this user on the disk that holds `dir`
/// (`statvfs`, through rustix's safe wrapper), where the system says.
#[cfg(unix)]
fn free_space(dir: &Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(not(unix))]
fn free_space(_dir: &Path) -> Option<u64> {
    None
}

/// The bytes of a table file, mapped read-only.
#[allow(unsafe_code, reason = "mapping a file is unsafe; see the SAFETY comment")]
fn map(file: &File) -> io::Result<TableBytes> {
    // SAFETY: a mapping is undefined behaviour if the file changes while
    // mapped. Table files are opened read-only and never written in place:
    // `Endgame::open` writes each under a temporary name and renames it
    // over the old one, and a mapping keeps the file it mapped, unchanged,
    // whatever its name is given to later. Only someone writing into the
    // file in place (not this workspace's code) could change it under a
    // running program, as they could corrupt any program's data file.
    let bytes = unsafe { memmap2::Mmap::map(file)? };
    // Lookups read a few states here and there: no read-ahead around them.
    #[cfg(unix)]
    bytes.advise(memmap2::Advice::Random)?;
    Ok(Arc::new(bytes))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use game_core::Board;
    use solver_expectimax::endgame::{Table, file_name, read_whole};

    use super::*;

    /// A folder of the system's temporary one for a test, empty.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("engine-tables-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    /// The corner block anchored at 32 (291,600 states): its odds mean
    /// something and it builds in a moment.
    fn block() -> Formation {
        Formation::block(5).unwrap()
    }

    /// Boards of the block anchored at 32 (the fixed tiles 512 256 128 /
    /// 64 128 32, the free cells within their bounds), from a small
    /// generator of our own.
    fn block_boards(n: usize) -> Vec<Board> {
        let bounds =
            [(3, 4), (7, 3), (8, 4), (9, 3), (10, 2), (11, 2), (12, 2), (13, 2), (14, 2), (15, 2)];
        let mut x: u64 = 0x2048;
        (0..n)
            .map(|_| {
                let mut raw: u64 = 0x0000_0000_0576_0789;
                for (cell, bound) in bounds {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    raw |= ((x >> 33) % (bound + 1)) << (4 * cell);
                }
                Board::from_raw(raw)
            })
            .collect()
    }

    #[test]
    fn mapped_tables_advise_as_tables_built_in_memory() {
        let dir = scratch("advice");
        let mapped = open_tables(&dir, &[block()], Check::Stamped, &|_| {}).unwrap();
        let built = Endgame::from_tables(vec![Table::build(block(), &|_| {})]);
        let read = Endgame::open(
            &dir,
            &[block()],
            Opening { hold: &read_whole, check: Check::Full, free_space: &free_space },
            &|_| {},
        )
        .unwrap();
        let mut advised = 0;
        for board in block_boards(2000) {
            let want = built.advise_block(board);
            assert_eq!(mapped.advise_block(board), want, "{board:?}");
            assert_eq!(read.advise_block(board), want, "{board:?}");
            advised += usize::from(want.is_some());
        }
        assert!(advised > 200, "only {advised} boards fit the block");
        // Mapped, the table writes the very file it maps.
        let mut bytes = Vec::new();
        mapped.table(block()).unwrap().write_to(&mut bytes).unwrap();
        assert_eq!(bytes, fs::read(dir.join(file_name(block()))).unwrap());
        drop(mapped);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_presets_tables_open_from_its_formations_in_the_folder_given() {
        let dir = scratch("preset");
        // The corner preset's tables of at most the block's states: that
        // block alone (no step table is so small).
        let states = block().states();
        let (folder, tables) =
            open_preset_tables(Preset::Corner, Some(&dir), Some(states), Check::Stamped, &|_| {})
                .unwrap();
        assert_eq!(folder, dir);
        assert_eq!(tables.formations().collect::<Vec<_>>(), [block()]);
        assert!(dir.join(file_name(block())).is_file());
        // The same again: the tables this process holds.
        let (_, again) =
            open_preset_tables(Preset::Corner, Some(&dir), Some(states), Check::Stamped, &|_| {})
                .unwrap();
        assert!(Arc::ptr_eq(&tables, &again));
        drop((tables, again));
        // A folder that cannot be made is the tables' error, said as theirs.
        let file = dir.join(file_name(block()));
        let err =
            open_preset_tables(Preset::Corner, Some(&file), Some(states), Check::Stamped, &|_| {})
                .unwrap_err();
        assert!(matches!(err, PresetTablesError::Endgame(_)), "{err:?}");
        assert!(std::error::Error::source(&err).is_some());
        assert_eq!(
            PresetTablesError::NoFolder.to_string(),
            "this system has no cache folder to keep the endgame tables in"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn damaged_files_are_refused_before_they_are_mapped_and_built_again() {
        let dir = scratch("damage");
        let log = Mutex::new(Vec::new());
        let note = |e: OpenEvent<'_>| {
            if let Some(line) = e.log_line() {
                log.lock().unwrap().push(line.replace(&dir.display().to_string(), "DIR"));
            }
        };
        let first = open_tables(&dir, &[block()], Check::Stamped, &note).unwrap();
        let path = dir.join(file_name(block()));
        let whole = fs::read(&path).unwrap();
        drop(first);
        // A short file (mapping it would let a lookup past its end crash
        // the program), a flipped bit, a foreign file: each refused.
        let mut flipped = whole.clone();
        flipped[1000] ^= 0x10;
        for damaged in [whole[..whole.len() / 2].to_vec(), flipped, b"hello, world".to_vec()] {
            // A file's change time may tick only every few milliseconds:
            // the damage comes later than the check stamp's time.
            std::thread::sleep(std::time::Duration::from_millis(50));
            fs::write(&path, damaged).unwrap();
            let tables = open_tables(&dir, &[block()], Check::Stamped, &note).unwrap();
            assert_eq!(fs::read(&path).unwrap(), whole, "built again as it was");
            drop(tables);
        }
        let built = "built the table of the corner block anchored at 32 (291600 states) into DIR/block-05.egt";
        let start = "building 1 endgame table: 291600 states, 583 kB on disk";
        assert_eq!(
            *log.lock().unwrap(),
            [
                start,
                built,
                "the table of the corner block anchored at 32 was refused (the table is truncated: \
                 291616 bytes where 583232 were written): building it again",
                start,
                built,
                "checking the table of the corner block anchored at 32 in full",
                "the table of the corner block anchored at 32 was refused (the table is corrupt: \
                 its checksum does not match): building it again",
                start,
                built,
                "the table of the corner block anchored at 32 was refused (not an endgame table \
                 file): building it again",
                start,
                built,
            ]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_free_space_is_the_systems() {
        let dir = std::env::temp_dir();
        let free = free_space(&dir).expect("the system says");
        assert!(free > 0);
        assert_eq!(free_space(&dir.join("no such folder here")), None);
    }

    #[test]
    fn tables_held_are_opened_once() {
        let dir = scratch("once");
        let opens = Mutex::new(0);
        let note = |e: OpenEvent<'_>| {
            if matches!(e, OpenEvent::Loaded(_) | OpenEvent::Written(..)) {
                *opens.lock().unwrap() += 1;
            }
        };
        let first = open_tables(&dir, &[block()], Check::Stamped, &note).unwrap();
        // The same folder by another path, the same formations: the same
        // tables.
        let again =
            open_tables(&dir.join("."), &[block(), block()], Check::Stamped, &note).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(*opens.lock().unwrap(), 1);
        // Other formations, or a full check asked for: opened anew.
        let other = Formation::block(6).unwrap();
        let more = open_tables(&dir, &[block(), other], Check::Stamped, &note).unwrap();
        assert!(!Arc::ptr_eq(&first, &more));
        let checked = open_tables(&dir, &[block()], Check::Full, &note).unwrap();
        assert!(!Arc::ptr_eq(&first, &checked));
        // Once no one holds them, they are opened again.
        drop((first, again, more, checked));
        let later = open_tables(&dir, &[block()], Check::Stamped, &note).unwrap();
        assert_eq!(*opens.lock().unwrap(), 5);
        drop(later);
        fs::remove_dir_all(&dir).unwrap();
    }
}
