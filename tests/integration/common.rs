//! Fixtures shared by every test module: the KBNK solution and a tables folder holding
//! `kbnk.rtb` and `mnk-3x3-3.rtb`, each made once per test run. Tests only read them;
//! a test that damages or replaces a table copies it into its own folder first, and a
//! folder that gathers shared tables links to them with [`link_shared`].

use retro::solve::Solve;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use retro::game::{Solution, SolveOptions};
use retro::progress::Silent;

/// The fixture in `cell`, made by `init` the first time, on a thread pool of its own,
/// installed from a thread of no pool.
///
/// - Its own pool: a fixture first asked for inside a rayon job (a test's `par_iter`)
///   holds that worker until it is made; made on the global pool while another thread
///   makes it, its own parallel work would wait for ever on the workers waiting for it
///   (two tests asking for [`chess_all4`] at once, one from its `par_iter`, hung the test
///   binary).
/// - From a thread of no pool: a rayon worker that waits for another pool runs its own
///   pool's jobs meanwhile, and one of those asking for this same fixture would wait on
///   the initialization its own thread is running (`compressed_dir`'s `par_iter` asking
///   for [`chess_all4`] hung so).
pub fn fixture<T: Send + Sync>(
    cell: &'static OnceLock<T>,
    init: impl FnOnce() -> T + Send,
) -> &'static T {
    cell.get_or_init(|| {
        let pool = rayon::ThreadPoolBuilder::new()
            .build()
            .expect("a thread pool for a fixture");
        std::thread::scope(|s| {
            s.spawn(|| pool.install(init))
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
        })
    })
}

/// The KBNK solution, solved once (the plug-in's fast solver, all cores).
pub fn kbnk_solution() -> &'static Solution {
    static SOL: OnceLock<Solution> = OnceLock::new();
    fixture(&SOL, || {
        retro::kbnk::Kbnk::new()
            .solve(&SolveOptions { progress: &Silent })
            .expect("KBNK solves")
    })
}

/// The start of the name of a test run's folder of shared fixtures, before its process id.
const FIXTURES: &str = "retro-test-fixtures-";

/// A new folder for a fixture shared by the whole test run. A static is never dropped, so
/// such a folder would outlive the run and pile up in the temporary folder, run after run
/// (the 35 tables of up to 4 pieces alone are 374 MB). Each run's fixtures go into a
/// folder named by its process id instead, and the first fixture made removes the folders
/// of the runs whose process has ended.
pub fn fixture_dir() -> tempfile::TempDir {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    let root = ROOT.get_or_init(|| {
        let tmp = std::env::temp_dir();
        // Without /proc, no process is known to have ended: nothing is removed.
        let procfs = Path::new("/proc/self").exists();
        sweep_fixtures(&tmp, |pid| {
            !procfs || pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
        });
        let root = tmp.join(format!("{FIXTURES}{}", std::process::id()));
        std::fs::create_dir_all(&root).expect("fixtures folder");
        root
    });
    tempfile::tempdir_in(root).expect("temp dir")
}

/// Put the shared table file `from` into folder `dir` under its own name: a symbolic link.
/// Never a hard link: a new link to a file changes its change time (ctime), and a server
/// holding the file open then takes its bytes as changed and stops answering from them
/// (`Stamp`), which failed the tests serving the shared set while another test gathered it.
pub fn link_shared(from: &Path, dir: &Path) {
    let from = from.canonicalize().expect("a shared table");
    std::os::unix::fs::symlink(&from, dir.join(from.file_name().unwrap())).expect("a link");
}

/// Remove the fixture folders in `tmp` of the test runs whose process is not `alive`.
fn sweep_fixtures(tmp: &Path, alive: impl Fn(u32) -> bool) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix(FIXTURES));
        if let Some(pid) = pid.and_then(|p| p.parse::<u32>().ok()) {
            if !alive(pid) {
                // Another run sweeping at the same time may have removed it first.
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

#[test]
fn the_fixtures_of_ended_runs_are_removed_and_no_other_folder() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "retro-test-fixtures-11",
        "retro-test-fixtures-12",
        "retro-test-fixtures-x",
        "other-13",
    ] {
        std::fs::create_dir_all(tmp.path().join(name).join("tables")).unwrap();
    }
    sweep_fixtures(tmp.path(), |pid| pid == 12);
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "other-13",
            "retro-test-fixtures-12",
            "retro-test-fixtures-x"
        ]
    );
}

/// A folder with `kbnk.rtb` (from [`kbnk_solution`]) and `mnk-3x3-3.rtb`, written once.
pub fn tables_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    fixture(&DIR, || {
        let dir = fixture_dir();
        retro::generate::write_solution(&retro::kbnk::Kbnk::new(), dir.path(), kbnk_solution())
            .expect("writes kbnk.rtb");
        let mnk = retro::GAMES.plugin("mnk-3x3-3").expect("a known table");
        retro::generate::generate(&*mnk, dir.path(), &Silent).expect("writes mnk-3x3-3.rtb");
        dir
    })
    .path()
}

/// A folder holding every chess table of up to 4 pieces (35), generated once per test run
/// through the library, as `retro generate chess --all 4` makes them: the reference set of
/// the distributed test and the tables of the chess facts. Tests only read it.
pub fn chess_all4() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    fixture(&DIR, || {
        let dir = fixture_dir();
        for m in retro::chess::material::Material::all(4) {
            let p = retro::GAMES
                .plugin_in(&m.to_string(), dir.path())
                .expect("sub-tables come first");
            retro::generate::generate(&*p, dir.path(), &Silent).expect("generates");
        }
        dir
    })
    .path()
}

/// The shared KBNK table file.
pub fn kbnk_file() -> PathBuf {
    tables_dir().join("kbnk.rtb")
}

/// A copy of the table file `from` in a folder of its own, with `edit` applied to its bytes.
pub fn edited_copy(from: &Path, edit: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(from.file_name().unwrap());
    let mut bytes = std::fs::read(from).unwrap();
    edit(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    (dir, path)
}

/// Runs the real `retro` executable.
pub fn retro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .expect("retro runs")
}

/// `retro probe TABLE - --tables DIR`, a batch probe reading its lines from a pipe, its
/// three streams piped.
pub fn batch_probe(table: &str, dir: &Path) -> std::process::Child {
    use std::process::Stdio;
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", table, "-", "--tables"])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("retro runs")
}

/// Standard output then standard error, as a person reads a command's answer.
pub fn output_text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// splitmix64: a small deterministic generator, one seed per test.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// `retro serve` on `dir`, on a free port, killed when dropped (or [`RetroServe::stop`]ped).
pub struct RetroServe {
    pub child: std::process::Child,
    /// `127.0.0.1:PORT`, as the server printed it.
    pub addr: String,
    /// Reads its standard error to the end; gives it whole.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl RetroServe {
    /// `retro serve --no-generate`: the tables of `dir` as they are.
    pub fn start(dir: &Path) -> RetroServe {
        RetroServe::spawn(
            &[
                OsStr::new("--no-generate"),
                "--tables".as_ref(),
                dir.as_ref(),
            ],
            None,
        )
    }

    /// `retro serve --tables DIR` as a person starts it on a folder of theirs (it must exist):
    /// the default tables missing from `dir` are made first. Returns once the server listens.
    pub fn start_making_defaults(dir: &Path) -> RetroServe {
        RetroServe::spawn(&["--tables".as_ref(), dir.as_ref()], None)
    }

    /// `retro serve` with no folder named, as the README's first command starts it, in
    /// `cwd`: it makes `cwd/tables` and the default tables in it.
    pub fn first_start(cwd: &Path) -> RetroServe {
        RetroServe::spawn(&[], Some(cwd))
    }

    fn spawn(flags: &[&OsStr], cwd: Option<&Path>) -> RetroServe {
        use std::io::{BufRead, BufReader, Read};
        use std::process::{Command, Stdio};
        let mut command = Command::new(env!("CARGO_BIN_EXE_retro"));
        command
            .arg("serve")
            .args(flags)
            .args(["--addr", "127.0.0.1:0"]);
        if let Some(cwd) = cwd {
            command.current_dir(cwd);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = child.stderr.take().unwrap();
        // Read as it comes: a server that says much must never block on a full pipe.
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut server = RetroServe {
            child,
            addr: String::new(),
            stderr: Some(stderr),
        };
        server.addr = loop {
            let mut line = String::new();
            if out.read_line(&mut line).unwrap() == 0 {
                panic!("retro serve exited: {}", server.stop());
            }
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest.split('/').next().unwrap().trim().to_string();
            }
        };
        server
    }

    /// Stop the server: what it said on standard error.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr.take().unwrap().join().unwrap()
    }
}

impl Drop for RetroServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `GET path` from a server at `addr` (`127.0.0.1:PORT`): the status and the body.
pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok());
    (status.expect("a status line"), body.to_string())
}

/// The default tables as `retro serve` makes them on a first start (no folder named, none
/// there yet: it makes `./tables`): every chess table of up to 4 pieces (DTM and DTZ,
/// compressed), KBNK and the k-in-a-row boards. Made once per test run by the real
/// `retro serve`, stopped once it listens.
pub struct Defaults {
    /// The folder `retro serve` made and filled.
    pub dir: PathBuf,
    /// What it said on standard error meanwhile.
    pub log: String,
    _root: tempfile::TempDir,
}

pub fn default_tables() -> &'static Defaults {
    static D: OnceLock<Defaults> = OnceLock::new();
    D.get_or_init(|| {
        let root = fixture_dir();
        let dir = root.path().join("tables");
        let log = RetroServe::first_start(root.path()).stop();
        Defaults {
            dir,
            log,
            _root: root,
        }
    })
}
