//! Functions over batches of packed 4x4 boards (afterstates, masks,
//! encodings) and the text form of boards of any size.

use game_core::{Board, GameBoard, Grid};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray1,
    PyReadonlyArray2, PyReadonlyArray3, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::encode::{Encoding, mask, packed_cells};
use crate::{GYM_DIRECTIONS, value_error};

/// A contiguous view's data, or a `ValueError`.
fn slice<'a, T: numpy::Element>(
    array: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous array")))
}

/// Afterstates, rewards and whether each action was legal.
type Afterstates<'py> =
    (Bound<'py, PyArray1<u64>>, Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<bool>>);

/// The afterstate of each board after its action, the score gained, and
/// whether the action changed the board (an unchanged board, reward 0,
/// when it did not).
#[pyfunction]
fn apply_action<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray1<'py, u64>,
    actions: PyReadonlyArray1<'py, i64>,
) -> PyResult<Afterstates<'py>> {
    let boards = slice(&boards, "boards")?;
    let actions = slice(&actions, "actions")?;
    if boards.len() != actions.len() {
        return Err(PyValueError::new_err(format!(
            "{} boards but {} actions: one action per board",
            boards.len(),
            actions.len()
        )));
    }
    if let Some((i, a)) = actions.iter().enumerate().find(|(_, a)| !(0..4).contains(*a)) {
        return Err(PyValueError::new_err(format!(
            "action {a} at index {i} is not one of 0 (up), 1 (right), 2 (down), 3 (left)"
        )));
    }
    // Copies: Python code may write to the arrays while the GIL is released.
    let (boards, actions) = (boards.to_vec(), actions.to_vec());
    let n = boards.len();
    let (mut after, mut rewards, mut legal) = (vec![0u64; n], vec![0i64; n], vec![false; n]);
    let unpackable = py.detach(|| {
        for i in 0..n {
            let board = Board::from_raw(boards[i]);
            match board.slide(GYM_DIRECTIONS[actions[i] as usize]) {
                // Two 32768s merged: the 65536 has no nibble, and its raw
                // form would read as a 32768 (a silent wrong answer).
                Some((next, _)) if !next.is_packed() => return Some(i),
                Some((next, score)) => {
                    after[i] = next.raw();
                    rewards[i] = i64::from(score);
                    legal[i] = true;
                }
                None => after[i] = board.raw(),
            }
        }
        None
    });
    if let Some(i) = unpackable {
        return Err(PyValueError::new_err(format!(
            "board {i}: action {a} merges two 32768s into a 65536, which a packed uint64 \
             board cannot hold; play past 32768 on exponents (Env2048.apply_action, \
             Env2048, VectorEnv2048)",
            a = actions[i]
        )));
    }
    Ok((after.into_pyarray(py), rewards.into_pyarray(py), legal.into_pyarray(py)))
}

/// One board of exponents `(n, n)` (any size, tiles past 32768 included)
/// moved by `action` without a spawn: the new exponents, the score gained
/// and whether the action changed the board.
#[pyfunction]
fn slide_board<'py>(
    py: Python<'py>,
    exponents: PyReadonlyArray2<'py, u8>,
    action: i64,
) -> PyResult<(Bound<'py, PyArray2<u8>>, u32, bool)> {
    let dir = crate::direction(action)?;
    let grid = grid_of(&exponents)?;
    let (next, score, legal) = match grid.slide(dir) {
        Some((next, score)) => (next, score, true),
        None => (grid, 0, false),
    };
    let n = next.size();
    Ok((next.cells().to_vec().into_pyarray(py).reshape([n, n])?, score, legal))
}

/// Whether no action changes a board of exponents `(n, n)`.
#[pyfunction]
fn board_over(exponents: PyReadonlyArray2<'_, u8>) -> PyResult<bool> {
    Ok(grid_of(&exponents)?.is_game_over())
}

/// Which actions change each board: `(N, 4)` int8 in gymnasium order.
#[pyfunction]
fn legal_actions<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray2<i8>>> {
    let boards = slice(&boards, "boards")?.to_vec();
    let mut out = vec![0i8; boards.len() * 4];
    py.detach(|| {
        for (chunk, &raw) in out.chunks_exact_mut(4).zip(&boards) {
            chunk.copy_from_slice(&mask(&Board::from_raw(raw)));
        }
    });
    out.into_pyarray(py).reshape([boards.len(), 4])
}

/// The observations of packed boards: `(N, 4, 4, max_pow)` one-hot, or
/// `(N, 4, 4)` exponents.
#[pyfunction]
#[pyo3(signature = (boards, obs_mode, max_pow))]
fn encode<'py>(
    py: Python<'py>,
    boards: PyReadonlyArray1<'py, u64>,
    obs_mode: &str,
    max_pow: usize,
) -> PyResult<Bound<'py, PyArrayDyn<u8>>> {
    let encoding = Encoding::parse(obs_mode, max_pow)?;
    let boards = slice(&boards, "boards")?.to_vec();
    let stride = 16 * encoding.per_cell();
    let mut out = vec![0u8; boards.len() * stride];
    py.detach(|| {
        for (chunk, &raw) in out.chunks_exact_mut(stride).zip(&boards) {
            encoding.write(packed_cells(Board::from_raw(raw)), chunk);
        }
    });
    let shape = match encoding {
        Encoding::OneHot { channels } => vec![boards.len(), 4, 4, channels],
        Encoding::Exponents => vec![boards.len(), 4, 4],
    };
    out.into_pyarray(py).reshape(shape)
}

/// Packs `(N, 4, 4)` exponents (0 to 15) into boards.
#[pyfunction]
fn pack<'py>(
    py: Python<'py>,
    exponents: PyReadonlyArray3<'py, u8>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let shape = exponents.shape();
    if shape[1] != 4 || shape[2] != 4 {
        return Err(PyValueError::new_err(format!(
            "packed boards are 4x4: expected exponents of shape (N, 4, 4), got {shape:?}"
        )));
    }
    let view = exponents.as_array();
    let mut out = Vec::with_capacity(shape[0]);
    for (b, board) in view.outer_iter().enumerate() {
        let mut rows = [[0u8; 4]; 4];
        for ((r, c), &e) in board.indexed_iter() {
            rows[r][c] = e;
        }
        let packed = Board::from_exponents(rows)
            .map_err(|e| PyValueError::new_err(format!("board {b}: {e}")))?;
        if !packed.is_packed() {
            return Err(PyValueError::new_err(format!(
                "board {b}: a tile past 32768 (exponent 15) does not fit a packed uint64 board"
            )));
        }
        out.push(packed.raw());
    }
    Ok(out.into_pyarray(py))
}

/// The exponents of a board written in game-core's notation (`"2 0 0 4/..."`,
/// rows split by `/` or new lines), any size from 2x2 to 8x8.
#[pyfunction]
fn parse_board<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyArray2<u8>>> {
    let grid: Grid = text
        .parse()
        .map_err(|e| PyValueError::new_err(format!("cannot read the board {text:?}: {e}")))?;
    let n = grid.size();
    grid.cells().to_vec().into_pyarray(py).reshape([n, n])
}

/// A board of exponents in game-core's one-line notation.
#[pyfunction]
fn format_board(exponents: PyReadonlyArray2<'_, u8>) -> PyResult<String> {
    Ok(grid_of(&exponents)?.to_string())
}

/// A square array of exponents as a grid.
pub(crate) fn grid_of(exponents: &PyReadonlyArray2<'_, u8>) -> PyResult<Grid> {
    let shape = exponents.shape();
    if shape[0] != shape[1] {
        return Err(PyValueError::new_err(format!(
            "a board is square: expected shape (n, n), got {shape:?}"
        )));
    }
    let mut grid = Grid::empty(shape[0]).map_err(value_error)?;
    for ((r, c), &e) in exponents.as_array().indexed_iter() {
        grid = grid.set_exponent(r, c, e).map_err(value_error)?;
    }
    Ok(grid)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(apply_action, m)?)?;
    m.add_function(wrap_pyfunction!(legal_actions, m)?)?;
    m.add_function(wrap_pyfunction!(encode, m)?)?;
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(parse_board, m)?)?;
    m.add_function(wrap_pyfunction!(format_board, m)?)?;
    m.add_function(wrap_pyfunction!(slide_board, m)?)?;
    m.add_function(wrap_pyfunction!(board_over, m)?)?;
    Ok(())
}
