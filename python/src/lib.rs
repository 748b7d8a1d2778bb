//! `retro_tablebase._retro`: retro's tables from Python. The probing is the chess crate's
//! (the Lichess answers of [`lichess::Tablebase`], read from a folder through
//! [`lichess::Folder`]) and the registry's (any table, as `retro probe --json` answers);
//! this module only turns boards into positions and answers into Python values, in
//! python-chess's conventions (see docs/python.md), and errors into Python exceptions.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString};
use pyo3::{create_exception, intern};

use retro::chess::lichess::types::{Category, TablebaseResponse};
use retro::chess::lichess::{self, fen, Folder, LichessError, Tables};
use retro::chess::material::Color;
use retro::chess::position::Clock;
use retro::chess::Position;
use retro::game::{PositionError, Value};

create_exception!(
    _retro,
    MissingTableError,
    PyKeyError,
    "No table answers the position: its material's table is not in the directories, or no \
     table can hold it (castling rights, more pieces than any table)."
);
create_exception!(
    _retro,
    InvalidPositionError,
    PyValueError,
    "The position cannot be read (a malformed FEN) or cannot occur (kings adjacent, the side \
     not to move in check, a pawn on the first or last rank)."
);

/// Why a probe has no answer.
enum Fail {
    /// No table for it: `get_*` answer their default.
    Missing(String),
    /// Not a position.
    Invalid(String),
    /// A table that could not be read.
    Damaged(String),
}

impl From<Fail> for PyErr {
    fn from(f: Fail) -> PyErr {
        match f {
            Fail::Missing(m) => MissingTableError::new_err(m),
            Fail::Invalid(m) => InvalidPositionError::new_err(m),
            Fail::Damaged(m) => PyOSError::new_err(m),
        }
    }
}

/// One directory of tables.
struct Dir {
    folder: Arc<Folder>,
    answers: lichess::Tablebase,
}

/// The chess tables of some directories, probed in python-chess's conventions. The
/// Python class `retro_tablebase.Tablebase` builds on it.
#[pyclass(subclass, module = "retro_tablebase._retro", name = "Tablebase")]
struct PyTablebase {
    dirs: RwLock<Vec<Arc<Dir>>>,
}

/// A metric of `probe_many`.
#[derive(Clone, Copy)]
enum Metric {
    Dtm,
    Wdl,
    Dtz,
}

impl PyTablebase {
    /// The directory holding the DTM table of `pos`'s material: the first one added.
    fn dir_of(&self, pos: &Position) -> Result<Arc<Dir>, Fail> {
        let dirs = self.dirs.read().unwrap_or_else(|e| e.into_inner());
        let material = pos.material();
        if material.is_bare_kings() {
            // Two kings have no table: any directory answers (a draw).
            return dirs
                .first()
                .cloned()
                .ok_or_else(|| Fail::Missing("no directory of tables has been added".to_string()));
        }
        let name = material.canonical().0.to_string();
        dirs.iter()
            .find(|d| d.folder.has(&name))
            .cloned()
            .ok_or_else(|| Fail::Missing(missing(&name, &dirs)))
    }

    /// retro's value of `pos` for its side to move.
    fn value(&self, pos: &Position) -> Result<Value, Fail> {
        if pos.material().is_bare_kings() {
            return Ok(Value::Draw);
        }
        let dir = self.dir_of(pos)?;
        dir.answers.value(pos).map_err(|e| fail(e, &dir))
    }

    /// DTM in plies as `chess.gaviota` gives it.
    fn dtm(&self, pos: &Position) -> Result<i32, Fail> {
        gaviota_dtm(self.value(pos)?)
    }

    /// The Lichess answer for `pos`, with its moves.
    fn standard(&self, pos: &Position) -> Result<(TablebaseResponse, Arc<Dir>), Fail> {
        let dir = self.dir_of(pos)?;
        let answer = dir.answers.standard(pos).map_err(|e| fail(e, &dir))?;
        Ok((answer, dir))
    }

    /// WDL as `chess.syzygy` gives it, the 50-move rule counted from the board's clock.
    fn wdl(&self, pos: &Position) -> Result<i32, Fail> {
        let (answer, dir) = self.standard(pos)?;
        syzygy_wdl(answer.pos.category)
            .ok_or_else(|| needs_dtz(pos, &dir, "WDL under the 50-move rule"))
    }

    /// DTZ as `chess.syzygy` gives it, exact in plies.
    fn dtz(&self, pos: &Position) -> Result<i32, Fail> {
        let (answer, dir) = self.standard(pos)?;
        answer.pos.dtz.ok_or_else(|| needs_dtz(pos, &dir, "DTZ"))
    }

    fn probe(&self, pos: &Position, metric: Metric) -> Result<i32, Fail> {
        match metric {
            Metric::Dtm => self.dtm(pos),
            Metric::Wdl => self.wdl(pos),
            Metric::Dtz => self.dtz(pos),
        }
    }
}

/// A board's answer, or `default` where no table answers it.
fn or_default(
    py: Python<'_>,
    r: Result<i32, Fail>,
    default: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    match r {
        Ok(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
        Err(Fail::Missing(_)) => Ok(default.unwrap_or_else(|| py.None())),
        Err(e) => Err(e.into()),
    }
}

#[pymethods]
impl PyTablebase {
    #[new]
    fn new() -> PyTablebase {
        PyTablebase {
            dirs: RwLock::new(Vec::new()),
        }
    }

    /// Add the chess tables of `directory` (dense `.rtb` or compressed `.rtbc`), after those
    /// already added: a material's table is read from the first directory that has it, with
    /// its sub-tables and DTZ table from that directory too. Returns how many tables it has.
    fn add_directory(&self, directory: PathBuf) -> PyResult<usize> {
        if !directory.is_dir() {
            return Err(PyOSError::new_err(format!(
                "not a directory: {}",
                directory.display()
            )));
        }
        let folder = Arc::new(Folder::open(&directory).map_err(|e| {
            PyOSError::new_err(format!("cannot list {}: {e}", directory.display()))
        })?);
        let n = folder.names().count();
        let answers = lichess::Tablebase::new(folder.clone() as Arc<dyn Tables>);
        self.dirs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::new(Dir { folder, answers }));
        Ok(n)
    }

    /// Distance to mate in plies, as `chess.gaviota` gives it: positive when the side to
    /// move mates, negative when it is mated, 0 for a draw and for a checkmated position.
    fn probe_dtm(&self, board: &Bound<'_, PyAny>) -> PyResult<i32> {
        let pos = position(board)?;
        Ok(self.dtm(&pos)?)
    }

    #[pyo3(signature = (board, default=None))]
    fn get_dtm(&self, board: &Bound<'_, PyAny>, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let pos = position_or_missing(board)?;
        or_default(board.py(), pos.and_then(|p| self.dtm(&p)), default)
    }

    /// Win/draw/loss as `chess.syzygy` gives it (2, 1 cursed win, 0, -1 blessed loss, -2),
    /// under the 50-move rule from the board's halfmove clock.
    fn probe_wdl(&self, board: &Bound<'_, PyAny>) -> PyResult<i32> {
        let pos = position(board)?;
        Ok(self.wdl(&pos)?)
    }

    #[pyo3(signature = (board, default=None))]
    fn get_wdl(&self, board: &Bound<'_, PyAny>, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let pos = position_or_missing(board)?;
        or_default(board.py(), pos.and_then(|p| self.wdl(&p)), default)
    }

    /// Distance to zeroing in plies with `chess.syzygy`'s signs, exact (never rounded).
    fn probe_dtz(&self, board: &Bound<'_, PyAny>) -> PyResult<i32> {
        let pos = position(board)?;
        Ok(self.dtz(&pos)?)
    }

    #[pyo3(signature = (board, default=None))]
    fn get_dtz(&self, board: &Bound<'_, PyAny>, default: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let pos = position_or_missing(board)?;
        or_default(board.py(), pos.and_then(|p| self.dtz(&p)), default)
    }

    /// WDL as `chess.gaviota` gives it: 1, 0 or -1 (a checkmated side too), with no
    /// 50-move rule.
    fn _gaviota_wdl(&self, board: &Bound<'_, PyAny>) -> PyResult<i32> {
        let pos = position(board)?;
        Ok(match self.value(&pos)? {
            Value::Win(_) => 1,
            Value::Loss(_) => -1,
            v => gaviota_dtm(v)?,
        })
    }

    /// Every legal move, best first for the side to move (Lichess's order): tuples of the
    /// move (UCI text) and what `probe_dtm`, `probe_wdl` and `probe_dtz` say of the
    /// position it leads to, for the opponent (`None` where that is not known exactly).
    #[allow(clippy::type_complexity)]
    fn _moves(
        &self,
        board: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(String, Option<i32>, Option<i32>, Option<i32>)>> {
        let pos = position(board)?;
        let (answer, _) = self.standard(&pos)?;
        Ok(answer
            .moves
            .into_iter()
            .map(|m| {
                let dtm = if m.pos.checkmate { Some(0) } else { m.pos.dtm };
                (m.uci, dtm, syzygy_wdl(m.pos.category), m.pos.dtz)
            })
            .collect())
    }

    /// The values of many positions (FEN strings or boards), one table lookup each for
    /// DTM: a list of what `get_<metric>` gives (`None` where no table answers); an
    /// `InvalidPositionError` naming the first position that is not one.
    #[pyo3(signature = (positions, metric="dtm"))]
    fn probe_many(
        &self,
        py: Python<'_>,
        positions: &Bound<'_, PyAny>,
        metric: &str,
    ) -> PyResult<Py<PyList>> {
        let metric = match metric {
            "dtm" => Metric::Dtm,
            "wdl" => Metric::Wdl,
            "dtz" => Metric::Dtz,
            other => {
                return Err(PyValueError::new_err(format!(
                    "metric must be 'dtm', 'wdl' or 'dtz', not {other:?}"
                )))
            }
        };
        let mut read: Vec<Result<Position, Fail>> = Vec::new();
        for (i, item) in positions.try_iter()?.enumerate() {
            read.push(position_or_missing(&item?).map_err(|e| numbered(i, e))?);
        }
        // The probes need no Python: other threads run meanwhile.
        let answers: Vec<Result<i32, Fail>> = py.detach(|| {
            read.into_iter()
                .map(|p| p.and_then(|p| self.probe(&p, metric)))
                .collect()
        });
        let out = PyList::empty(py);
        for (i, a) in answers.into_iter().enumerate() {
            match a {
                Ok(v) => out.append(v)?,
                Err(Fail::Missing(_)) => out.append(py.None())?,
                Err(e) => return Err(numbered(i, e.into())),
            }
        }
        Ok(out.unbind())
    }

    /// Forget every directory: later probes find no table.
    fn close(&self) {
        self.dirs.write().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// An error about the `i`-th position of a batch.
fn numbered(i: usize, e: PyErr) -> PyErr {
    Python::attach(|py| {
        let text = format!("position {i}: {}", e.value(py));
        if e.is_instance_of::<MissingTableError>(py) {
            MissingTableError::new_err(text)
        } else if e.is_instance_of::<InvalidPositionError>(py) {
            InvalidPositionError::new_err(text)
        } else {
            e
        }
    })
}

/// `chess.gaviota`'s DTM of a value for the side to move.
fn gaviota_dtm(v: Value) -> Result<i32, Fail> {
    match v {
        Value::Win(p) => Ok(i32::from(p)),
        Value::Loss(p) => Ok(-i32::from(p)),
        Value::Draw => Ok(0),
        Value::Illegal => Err(Fail::Invalid(
            "the table holds no such position".to_string(),
        )),
    }
}

/// `chess.syzygy`'s WDL of a Lichess category; `None` where retro cannot tell whether a
/// win survives the 50-move rule (no DTZ table).
fn syzygy_wdl(c: Category) -> Option<i32> {
    match c {
        Category::Win | Category::SyzygyWin => Some(2),
        Category::CursedWin => Some(1),
        Category::Draw => Some(0),
        Category::BlessedLoss => Some(-1),
        Category::Loss | Category::SyzygyLoss => Some(-2),
        Category::MaybeWin | Category::MaybeLoss | Category::Unknown => None,
    }
}

/// The error of a position whose answer needs its material's DTZ table.
fn needs_dtz(pos: &Position, dir: &Dir, what: &str) -> Fail {
    let name = format!(
        "{}{}",
        pos.material().canonical().0,
        retro::chess::subtables::DTZ_SUFFIX
    );
    let why = match dir.folder.error(&name) {
        Some(e) => format!(": {e}"),
        None if dir.folder.has(&name) => String::new(),
        None => format!(" (no table {name} in {})", dir.folder.dir().display()),
    };
    Fail::Missing(format!(
        "{what}: this position needs the DTZ table {name} and the DTZ tables it reads{why}"
    ))
}

/// The message of a material with no table in any directory.
fn missing(name: &str, dirs: &[Arc<Dir>]) -> String {
    if dirs.is_empty() {
        return format!("no table {name}: no directory of tables has been added");
    }
    let list: Vec<String> = dirs
        .iter()
        .map(|d| d.folder.dir().display().to_string())
        .collect();
    format!("no table {name} in {}", list.join(", "))
}

/// A Lichess error as a Python one.
fn fail(e: LichessError, dir: &Dir) -> Fail {
    match e {
        LichessError::Query(m) | LichessError::InvalidFen(m) => {
            Fail::Invalid(format!("invalid FEN: {m}"))
        }
        LichessError::IllegalPosition(m) => Fail::Invalid(format!("illegal position: {m}")),
        LichessError::NotInTablebase(m) => Fail::Missing(m),
        LichessError::Missing { name } => Fail::Missing(match dir.folder.error(&name) {
            Some(why) => why.to_string(),
            None => format!("no table {name} in {}", dir.folder.dir().display()),
        }),
        LichessError::SubTables(e) => Fail::Missing(e.to_string()),
        LichessError::Damaged(e) => Fail::Damaged(e.to_string()),
    }
}

/// A board as a position, an error that is no answer (`InvalidPositionError`) raised at
/// once, a position no table holds kept for `get_*` to answer its default.
fn position_or_missing(board: &Bound<'_, PyAny>) -> PyResult<Result<Position, Fail>> {
    match read_board(board)? {
        Err(Fail::Missing(m)) => Ok(Err(Fail::Missing(m))),
        Err(e) => Err(e.into()),
        Ok(p) => Ok(Ok(p)),
    }
}

fn position(board: &Bound<'_, PyAny>) -> PyResult<Position> {
    Ok(read_board(board)??)
}

/// The position of a FEN string, of a python-chess board (read from its bitboards: its
/// `fen()` takes longer than the probe), or of any object with a `fen()` method.
fn read_board(board: &Bound<'_, PyAny>) -> PyResult<Result<Position, Fail>> {
    let py = board.py();
    let classify = |e: LichessError| match e {
        LichessError::NotInTablebase(m) => Fail::Missing(m),
        LichessError::IllegalPosition(m) => Fail::Invalid(format!("illegal position: {m}")),
        LichessError::Query(m) | LichessError::InvalidFen(m) => {
            Fail::Invalid(format!("invalid FEN: {m}"))
        }
        other => Fail::Invalid(other.to_string()),
    };
    if board.is_instance_of::<PyString>() {
        let text: PyBackedStr = board.extract()?;
        if text.trim().is_empty() {
            return Ok(Err(Fail::Invalid("invalid FEN: the text is empty".into())));
        }
        if text.len() > lichess::MAX_FEN_LEN {
            return Ok(Err(Fail::Invalid(
                "invalid FEN: longer than any FEN".into(),
            )));
        }
        return Ok(fen::read(Some(&text)).map_err(classify));
    }
    if let Some(bitboards) = python_chess_board(board)? {
        return Ok(bitboards.map_err(classify));
    }
    if !board.hasattr(intern!(py, "fen"))? {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a board must be a FEN string or have a fen() method, not {}",
            board.get_type().name()?
        )));
    }
    let text: PyBackedStr = board.call_method0(intern!(py, "fen"))?.extract()?;
    Ok(fen::read(Some(&text)).map_err(classify))
}

/// The position of a python-chess board without castling rights, from its bitboards;
/// `None` for any other object (read from its FEN instead).
fn python_chess_board(
    board: &Bound<'_, PyAny>,
) -> PyResult<Option<Result<Position, LichessError>>> {
    let py = board.py();
    let Ok(occupied) = board.getattr(intern!(py, "occupied_co")) else {
        return Ok(None);
    };
    let castling: u64 = board.getattr(intern!(py, "castling_rights"))?.extract()?;
    if castling != 0 {
        // Whether a right can be used is the FEN reader's to say.
        return Ok(None);
    }
    let get = |name: &Bound<'_, PyString>| -> PyResult<u64> { board.getattr(name)?.extract() };
    // python-chess indexes colours by `chess.WHITE` (True, 1) and `chess.BLACK` (False, 0).
    let colors = [
        occupied.get_item(1)?.extract::<u64>()?,
        occupied.get_item(0)?.extract::<u64>()?,
    ];
    let roles = [
        get(intern!(py, "pawns"))?,
        get(intern!(py, "knights"))?,
        get(intern!(py, "bishops"))?,
        get(intern!(py, "rooks"))?,
        get(intern!(py, "queens"))?,
        get(intern!(py, "kings"))?,
    ];
    let turn = if board.getattr(intern!(py, "turn"))?.is_truthy()? {
        Color::White
    } else {
        Color::Black
    };
    let ep: Option<u8> = board.getattr(intern!(py, "ep_square"))?.extract()?;
    let clock = Clock {
        halfmove: board.getattr(intern!(py, "halfmove_clock"))?.extract()?,
        fullmove: board.getattr(intern!(py, "fullmove_number"))?.extract()?,
    };
    Ok(Some(fen::from_bitboards(colors, roles, turn, ep, clock)))
}

/// One table of any game, as `retro probe --json` answers from it.
#[pyclass(module = "retro_tablebase._retro", name = "Table", frozen)]
struct PyTable {
    loaded: retro::registry::Loaded,
}

#[pymethods]
impl PyTable {
    /// The table's name (`KQvKR`, `kbnk`, `mnk-4x4-3`).
    #[getter]
    fn name(&self) -> String {
        self.loaded.plugin.name()
    }

    /// The game id of its header (`chess`, `kbnk`, `mnk`).
    #[getter]
    fn game(&self) -> String {
        self.loaded.table.header().game.clone()
    }

    /// What the table holds, in words.
    #[getter]
    fn title(&self) -> String {
        self.loaded.plugin.title()
    }

    /// The answer of `retro probe --json` for a position in the game's notation, as a dict.
    fn probe<'py>(&self, py: Python<'py>, position: &str) -> PyResult<Bound<'py, PyAny>> {
        let json = self.probe_json(position)?;
        py.import(intern!(py, "json"))?
            .call_method1(intern!(py, "loads"), (json,))
    }

    /// The same as JSON text.
    fn probe_json(&self, position: &str) -> PyResult<String> {
        match self.loaded.plugin.probe(&self.loaded.table, position) {
            Ok(answer) => Ok(answer.json()),
            Err(retro::present::ProbeError::Position(PositionError::Illegal(why))) => Err(
                InvalidPositionError::new_err(format!("illegal position: {why}")),
            ),
            Err(retro::present::ProbeError::Position(PositionError::Malformed(why))) => Err(
                InvalidPositionError::new_err(format!("malformed position: {why}")),
            ),
            Err(retro::present::ProbeError::Table(e)) => Err(PyOSError::new_err(e.to_string())),
        }
    }
}

/// Open one table file of any game; its sub-tables (chess) are read from its directory.
#[pyfunction]
fn open_table(path: PathBuf) -> PyResult<PyTable> {
    if !path.exists() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "no such table file: {}",
            path.display()
        )));
    }
    let loaded = retro::GAMES
        .open_file(&path, true)
        .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
    Ok(PyTable { loaded })
}

#[pymodule]
fn _retro(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add(
        "InvalidPositionError",
        py.get_type::<InvalidPositionError>(),
    )?;
    m.add_class::<PyTablebase>()?;
    m.add_class::<PyTable>()?;
    m.add_function(wrap_pyfunction!(open_table, m)?)?;
    Ok(())
}
