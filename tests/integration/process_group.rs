//! Child processes that must not outlive their test or benchmark (a Dask scheduler, its
//! workers' nannies, their worker processes and those workers' `retro generate`): each is
//! started leading its own process group, and every group is killed when the [`Group`] is
//! dropped, whether the run passed or not. Shared by the distributed test and benchmark
//! (`benches/distributed.rs` includes this file).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

#[derive(Default)]
pub struct Group(Vec<Child>);

impl Group {
    /// Start `cmd` in a new process group, its output going to `log`; its pid.
    pub fn start(&mut self, mut cmd: Command, log: &Path) -> u32 {
        let out = std::fs::File::create(log).expect("log file");
        let err = out.try_clone().expect("log file");
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = cmd.spawn().expect("starts");
        let pid = child.id();
        self.0.push(child);
        pid
    }

    /// The child started with pid `pid`.
    #[allow(dead_code)] // the benchmark, which includes this file too, does not use it
    pub fn child(&mut self, pid: u32) -> Option<&mut Child> {
        self.0.iter_mut().find(|c| c.id() == pid)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        for c in &mut self.0 {
            // The whole group: a nanny's worker and its `retro` children too.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", c.id())])
                .stderr(Stdio::null())
                .status();
            let _ = c.wait();
        }
    }
}
