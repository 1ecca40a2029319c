//! Where the shipped weights are at run time: named by the environment,
//! beside the program, in the user's data folder, or in the checkout the
//! program was built from, in that order. A path compiled in names the
//! build machine's checkout, which an installed program may not have.

use std::path::PathBuf;

use crate::file::{FileError, FileErrorKind};
use crate::{DATA_FOLDER, SHIPPED_FILE_NAME, SHIPPED_WEIGHTS, WEIGHTS_VAR};

/// The places the shipped weights are looked for, in order: the file
/// [`WEIGHTS_VAR`] names when it is set (then alone); else the shipped
/// file's name beside the running program and in `../share/cli-ascii-2048`
/// from it, in the user's data folder ([`DATA_FOLDER`]), and
/// [`SHIPPED_WEIGHTS`].
pub fn shipped_weights_places() -> Vec<PathBuf> {
    if let Some(named) = std::env::var_os(WEIGHTS_VAR).filter(|v| !v.is_empty()) {
        return vec![PathBuf::from(named)];
    }
    let mut places = Vec::new();
    if let Some(dir) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(PathBuf::from))
    {
        places.push(dir.join(SHIPPED_FILE_NAME));
        places.push(dir.join("..").join("share").join(DATA_FOLDER).join(SHIPPED_FILE_NAME));
    }
    if let Some(data) = dirs::data_dir() {
        places.push(data.join(DATA_FOLDER).join(SHIPPED_FILE_NAME));
    }
    places.push(PathBuf::from(SHIPPED_WEIGHTS));
    places
}

/// The first of [`shipped_weights_places`] that is a file.
///
/// # Errors
/// [`FileErrorKind::NotFound`] with every place looked at, when none is.
pub fn find_shipped_weights() -> Result<PathBuf, FileError> {
    let places = shipped_weights_places();
    match places.iter().find(|p| p.is_file()) {
        Some(found) => Ok(found.clone()),
        None => {
            let first = places.first().cloned().unwrap_or_else(|| PathBuf::from(SHIPPED_WEIGHTS));
            Err(FileError::new(&first, FileErrorKind::NotFound(places)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_folder_comes_first_and_the_checkout_last() {
        // With the variable set (a developer's shell) it is the only place,
        // which the cli-ascii tests check; here, the places without it.
        if std::env::var_os(WEIGHTS_VAR).is_some_and(|v| !v.is_empty()) {
            return;
        }
        let places = shipped_weights_places();
        let exe = std::env::current_exe().unwrap();
        assert_eq!(places[0], exe.parent().unwrap().join(SHIPPED_FILE_NAME));
        assert_eq!(places.last(), Some(&PathBuf::from(SHIPPED_WEIGHTS)));
        assert!(places.iter().any(|p| p.ends_with(format!("{DATA_FOLDER}/{SHIPPED_FILE_NAME}"))));
    }
}
