//! Engines reached through tt-umd: the Python runner in `engines/`
//! (`python -m tensix_engine --target ...`) serves a JSON line protocol on
//! its standard input and output; see `engines/tensix_engine/runner.py`.
//!
//! One runner process is kept across vectors. A simulator that stops on
//! something it does not model ends the process: its last words on standard
//! error become the verdict, and the next vector starts a new process. A run
//! that does not answer in time is killed the same way.

use super::{Engine, EngineInfo, Observation, Verdict};
use crate::device::{self, DstPlan, Image};
use crate::vector::{FaultKind, Vector};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Which engine, as the command line names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `ttsim:PATH`: a `libttsim.so`.
    Ttsim(PathBuf),
    /// `wolfpine[:DIR]`: Wolfpine's simulator directory (default: the
    /// Wormhole one of the installed package).
    Wolfpine(Option<PathBuf>),
    /// `device[:INDEX]`: a card tt-umd finds.
    Device(u32),
}

impl Target {
    pub fn parse(text: &str) -> Result<Target, String> {
        let (kind, rest) = match text.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (text, None),
        };
        match (kind, rest) {
            ("ttsim", Some(p)) if !p.is_empty() => Ok(Target::Ttsim(PathBuf::from(p))),
            ("ttsim", _) => Err("ttsim needs the path of a libttsim.so: ttsim:PATH".into()),
            ("wolfpine", p) => Ok(Target::Wolfpine(
                p.filter(|p| !p.is_empty()).map(PathBuf::from),
            )),
            ("device", None) => Ok(Target::Device(0)),
            ("device", Some(i)) => i
                .parse()
                .map(Target::Device)
                .map_err(|_| format!("device:{i}: the card index must be a number")),
            _ => Err(format!(
                "unknown engine `{text}`: use ttsim:PATH, wolfpine[:DIR] or device[:INDEX]"
            )),
        }
    }

    /// The provenance source of what this engine records.
    pub fn kind(&self) -> &'static str {
        match self {
            Target::Ttsim(_) => "ttsim",
            Target::Wolfpine(_) => "wolfpine",
            Target::Device(_) => "device",
        }
    }

    fn arg(&self) -> String {
        match self {
            Target::Ttsim(p) => format!("ttsim:{}", p.display()),
            Target::Wolfpine(None) => "wolfpine".into(),
            Target::Wolfpine(Some(p)) => format!("wolfpine:{}", p.display()),
            Target::Device(i) => format!("device:{i}"),
        }
    }
}

/// How to start the runner.
#[derive(Clone, Debug)]
pub struct RunnerCommand {
    /// The Python interpreter (with tt-umd installed).
    pub python: PathBuf,
    /// The directory holding the `tensix_engine` package.
    pub engines_dir: PathBuf,
}

impl RunnerCommand {
    /// `TENSIX_PYTHON` or `engines/.venv/bin/python` (made by
    /// `tools/setup-engines.sh`) or `python3`; the package from
    /// `TENSIX_ENGINES_DIR` or this checkout's `engines/`.
    pub fn from_env() -> RunnerCommand {
        let engines_dir = std::env::var_os("TENSIX_ENGINES_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../engines")));
        let venv = engines_dir.join(".venv/bin/python");
        let python = std::env::var_os("TENSIX_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                if venv.exists() {
                    venv
                } else {
                    PathBuf::from("python3")
                }
            });
        RunnerCommand {
            python,
            engines_dir,
        }
    }
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Disconnects when the runner's standard error has ended.
    stderr_closed: Receiver<()>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of standard error kept for the verdict of a runner that died.
const STDERR_LINES: usize = 40;

/// An engine behind the tt-umd runner.
pub struct UmdEngine {
    target: Target,
    command: RunnerCommand,
    /// Time allowed for one vector's run, beyond the engine's start-up.
    pub timeout: Duration,
    /// Time allowed for the runner to open the engine.
    pub start_timeout: Duration,
    process: Option<Process>,
    hello: Option<Value>,
}

enum Failure {
    TimedOut,
    /// The runner ended; its last words on standard error.
    Died(String),
}

impl UmdEngine {
    pub fn new(target: Target, command: RunnerCommand) -> UmdEngine {
        UmdEngine {
            target,
            command,
            timeout: Duration::from_secs(30),
            start_timeout: Duration::from_secs(120),
            process: None,
            hello: None,
        }
    }

    fn start(&mut self) -> Result<(), String> {
        let mut child = Command::new(&self.command.python)
            .args(["-m", "tensix_engine", "--target", &self.target.arg()])
            .env("PYTHONPATH", &self.command.engines_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                format!(
                    "cannot start {} (run tools/setup-engines.sh, or set TENSIX_PYTHON): {e}",
                    self.command.python.display()
                )
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err("the runner's pipes could not be opened".into());
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = Arc::clone(&tail);
        let (closing, stderr_closed) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            let _closing = closing;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut t = keep.lock().unwrap_or_else(|p| p.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        self.process = Some(Process {
            child,
            stdin,
            lines,
            stderr: tail,
            stderr_closed,
        });
        let reply = self
            .request(&json!({"op": "hello"}), self.start_timeout)
            .map_err(|f| match f {
                Failure::TimedOut => format!(
                    "{} did not open in {} s",
                    self.target.arg(),
                    self.start_timeout.as_secs()
                ),
                Failure::Died(m) => m,
            })?;
        if reply["status"] != "ok" {
            self.process = None;
            return Err(reply["message"]
                .as_str()
                .unwrap_or("the runner refused")
                .to_string());
        }
        self.hello = Some(reply);
        Ok(())
    }

    fn request(&mut self, req: &Value, timeout: Duration) -> Result<Value, Failure> {
        let Some(p) = self.process.as_mut() else {
            return Err(Failure::Died("the runner is not running".into()));
        };
        let sent = writeln!(p.stdin, "{req}").and_then(|_| p.stdin.flush());
        let answer = match sent {
            Ok(()) => p.lines.recv_timeout(timeout),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        match answer {
            Ok(line) => serde_json::from_str(&line).map_err(|e| {
                self.process = None;
                Failure::Died(format!(
                    "the runner answered something that is not JSON ({e})"
                ))
            }),
            Err(RecvTimeoutError::Timeout) => {
                self.process = None;
                Err(Failure::TimedOut)
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = p.child.wait();
                // Let the stderr reader drain the last lines: it ends at the
                // pipe's end, which a simulator process the runner started
                // may hold open for a while, so the wait is bounded.
                let _ = p.stderr_closed.recv_timeout(Duration::from_secs(5));
                let tail: Vec<String> = p
                    .stderr
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .cloned()
                    .collect();
                self.process = None;
                Err(Failure::Died(last_words(&tail)))
            }
        }
    }

    /// The engine's own description, once it has started.
    pub fn hello(&self) -> Option<&Value> {
        self.hello.as_ref()
    }

    /// Start the engine (if it is not running) and say which architecture
    /// it simulates or is.
    pub fn open(&mut self) -> Result<crate::vector::Arch, String> {
        if self.process.is_none() {
            self.start()?;
        }
        let name = self
            .hello
            .as_ref()
            .and_then(|h| h["arch"].as_str())
            .unwrap_or("");
        crate::vector::Arch::from_name(name)
            .ok_or_else(|| format!("the engine names no architecture it runs (`{name}`)"))
    }

    /// Run a program image and read back L1.
    pub fn run_image(&mut self, image: &Image) -> Verdict {
        if self.process.is_none() {
            if let Err(e) = self.start() {
                return Verdict::Refused(e);
            }
        }
        let mut req = device::bundle::run_request(image, self.timeout.as_secs_f64());
        // Only the blocks the run changed come back: the whole of L1 as hex
        // would cost more than the run.
        req["reply"] = json!("changes");
        // The runner has its own deadline; this one catches an engine that
        // stops answering altogether.
        let reply = match self.request(&req, self.timeout * 2 + Duration::from_secs(10)) {
            Ok(r) => r,
            Err(Failure::TimedOut) => {
                return Verdict::TimedOut(format!(
                    "no answer in {} s",
                    (self.timeout * 2).as_secs() + 10
                ))
            }
            Err(Failure::Died(m)) => return verdict_of_death(&m),
        };
        verdict_of_reply(&reply, image.arch, Some(image))
    }
}

/// The verdict a runner's reply to `run` carries (also what a bundle's
/// result files hold: `status` `died` is a runner that ended, with its
/// last words in `message`). A reply that carries only the changed blocks
/// (`l1_changes`) is read against `image`, the image the run started from.
pub fn verdict_of_reply(
    reply: &Value,
    arch: crate::vector::Arch,
    image: Option<&Image>,
) -> Verdict {
    let message = reply["message"].as_str().unwrap_or("").to_string();
    match reply["status"].as_str() {
        Some("ok") => {
            // The runner echoes the image's own region, which is not compared.
            let region = match (reply["region"][0].as_u64(), reply["region"][1].as_u64()) {
                (Some(a), Some(b)) if a <= b && b <= arch.l1_size() as u64 => a as u32..b as u32,
                _ => return Verdict::Refused("the runner's reply names no image region".into()),
            };
            // And the ranges the engine itself changed (Wolfpine's parked
            // BRISC), when it names any.
            let mut unobserved = vec![region];
            for r in reply["unobserved"].as_array().into_iter().flatten() {
                match (r[0].as_u64(), r[1].as_u64()) {
                    (Some(a), Some(b)) if a <= b && b <= arch.l1_size() as u64 => {
                        unobserved.push(a as u32..b as u32)
                    }
                    _ => {
                        return Verdict::Refused(format!("the runner's reply has a bad range {r}"))
                    }
                }
            }
            let l1 = match (&reply["l1"], &reply["l1_changes"], image) {
                (Value::String(text), _, _) => unhex(text),
                (_, Value::Array(changes), Some(image)) => apply_changes(image, changes),
                _ => None,
            };
            let (dst, src) = match image.map(|i| &i.dst) {
                Some(DstPlan::Read(rb)) => {
                    let w = rb.window();
                    if !w.is_empty() {
                        unobserved.push(w.start..w.end.min(arch.l1_size() as u32));
                    }
                    let outside = || "the Dst readback lies outside L1".to_string();
                    (
                        l1.as_deref()
                            .and_then(|l1| rb.read(arch, l1))
                            .ok_or_else(outside),
                        l1.as_deref()
                            .and_then(|l1| rb.read_src(l1))
                            .map(Box::new)
                            .ok_or_else(outside),
                    )
                }
                Some(DstPlan::Unread(why)) => (Err(why.clone()), Err(why.clone())),
                Some(DstPlan::NotAsked) => {
                    let why = "not read back: the vector expected no Dst, SrcA or SrcB rows";
                    (Err(why.into()), Err(why.into()))
                }
                None => {
                    let why = "not read back: no program image to find it by";
                    (Err(why.into()), Err(why.into()))
                }
            };
            match l1 {
                Some(l1) if l1.len() == arch.l1_size() => Verdict::Observed(Observation {
                    l1,
                    l1_unobserved: unobserved,
                    dst,
                    src,
                }),
                _ => Verdict::Refused("the runner's L1 read-back is not the whole L1".into()),
            }
        }
        Some("timeout") => Verdict::TimedOut(message),
        Some("died") => verdict_of_death(&message),
        _ => Verdict::Refused(message),
    }
}

impl Engine for UmdEngine {
    fn info(&self) -> EngineInfo {
        match &self.hello {
            Some(h) => info_of_hello(h),
            None => EngineInfo {
                kind: self.target.kind().into(),
                detail: self.target.arg(),
            },
        }
    }

    fn run(&mut self, v: &Vector) -> Verdict {
        match super::image_for(v) {
            Ok(image) => self.run_image(&image),
            Err(r) => Verdict::Refused(format!("program image: {r}")),
        }
    }
}

/// L1 after a run: `image` as written (its fill, then its ranges), with
/// the reply's changed blocks on top. `None` when a change is malformed or
/// falls outside L1.
fn apply_changes(image: &Image, changes: &[Value]) -> Option<Vec<u8>> {
    let size = image.arch.l1_size();
    let mut l1 = vec![image.l1_fill; size];
    for (addr, bytes) in &image.l1 {
        l1.get_mut(*addr as usize..*addr as usize + bytes.len())?
            .copy_from_slice(bytes);
    }
    for c in changes {
        let addr = usize::try_from(c[0].as_u64()?).ok()?;
        let bytes = unhex(c[1].as_str()?)?;
        l1.get_mut(addr..addr.checked_add(bytes.len())?)?
            .copy_from_slice(&bytes);
    }
    Some(l1)
}

/// What a runner's `hello` says of its engine.
pub fn info_of_hello(h: &Value) -> EngineInfo {
    let target = h["target"].as_str().unwrap_or("?");
    EngineInfo {
        kind: target.split(':').next().unwrap_or("?").to_string(),
        detail: format!(
            "{target} via tt-umd {}, {} tile {}-{}",
            h["umd"].as_str().unwrap_or("?"),
            h["arch"].as_str().unwrap_or("?"),
            h["tile"][0],
            h["tile"][1]
        ),
    }
}

/// The line that says why a runner ended: ttsim's `ERROR: <category>: ...`
/// (src/common.cpp `ttsim_error`), a Python exception, or the last line.
fn last_words(tail: &[String]) -> String {
    let lines: Vec<&str> = tail
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let found = ["ERROR:", "Error"]
        .iter()
        .find_map(|mark| lines.iter().rposition(|l| l.contains(mark)));
    match found {
        Some(i) => {
            let line = lines[i];
            let name = line.trim_end_matches(':');
            let bare = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if bare {
                format!("{line}{}", raised_at(&lines[..i]))
            } else {
                line.to_string()
            }
        }
        None => lines
            .last()
            .map(|l| l.to_string())
            .unwrap_or_else(|| "the runner ended without a word".into()),
    }
}

/// ` at FILE:LINE in FUNC: CODE` from the innermost frame of a Python
/// traceback that ends just before a bare error name (a plain `assert` in
/// Wolfpine), else nothing.
fn raised_at(before: &[&str]) -> String {
    let Some(f) = before.iter().rposition(|l| l.starts_with("File \"")) else {
        return String::new();
    };
    if before.len() - f > 4 {
        return String::new();
    }
    let Some((path, rest)) = before[f]["File \"".len()..].split_once("\", line ") else {
        return String::new();
    };
    let Some((number, func)) = rest.split_once(", in ") else {
        return String::new();
    };
    let parts: Vec<&str> = path.rsplit('/').take(3).collect();
    let place: Vec<&str> = parts.into_iter().rev().collect();
    let code = before
        .get(f + 1)
        .filter(|c| !c.starts_with('^'))
        .map(|c| format!(": {c}"))
        .unwrap_or_default();
    format!(" at {}:{number} in {func}{code}", place.join("/"))
}

/// A runner that died: ttsim's `UndefinedBehavior` is a verdict the vector
/// schema can state; everything else is a refusal.
fn verdict_of_death(message: &str) -> Verdict {
    if message.contains("ERROR: UndefinedBehavior") {
        Verdict::Stopped {
            kind: FaultKind::UndefinedBehavior,
            message: message.to_string(),
        }
    } else {
        Verdict::Refused(message.to_string())
    }
}

/// Bytes as lowercase hex digits, as the runner protocol carries them.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    let t = text.as_bytes();
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    t.chunks(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::Arch;

    #[test]
    fn parses_targets() {
        assert_eq!(
            Target::parse("ttsim:/x/libttsim.so"),
            Ok(Target::Ttsim("/x/libttsim.so".into()))
        );
        assert!(Target::parse("ttsim").is_err());
        assert!(Target::parse("ttsim:").is_err());
        assert_eq!(Target::parse("wolfpine"), Ok(Target::Wolfpine(None)));
        assert_eq!(Target::parse("device"), Ok(Target::Device(0)));
        assert_eq!(Target::parse("device:3"), Ok(Target::Device(3)));
        assert!(Target::parse("device:x").is_err());
        assert!(Target::parse("qemu").is_err());
    }

    #[test]
    fn a_changes_reply_is_read_on_top_of_the_image_written() {
        let image = Image {
            arch: Arch::WormholeB0,
            l1_fill: 0x5a,
            l1: vec![(0x100, vec![1, 2])],
            reset_pcs: [0x6000, 0xa000, 0xe000],
            flags: [0x5f00, 0x5f10, 0x5f20],
            region: 0x5f00..0x6000,
            dst: DstPlan::NotAsked,
        };
        let reply = |changes: Value| {
            let r = json!({"status": "ok", "region": [0x5f00, 0x6000], "l1_changes": changes});
            verdict_of_reply(&r, Arch::WormholeB0, Some(&image))
        };
        let Verdict::Observed(o) = reply(json!([[0x101, "07"], [0x200, "ff"]])) else {
            panic!("a well-formed changes reply is an observation")
        };
        assert_eq!(&o.l1[0xff..0x103], &[0x5a, 1, 7, 0x5a]);
        assert_eq!(o.l1[0x200], 0xff);
        assert_eq!(o.l1.len(), Arch::WormholeB0.l1_size());
        let end = Arch::WormholeB0.l1_size();
        for bad in [
            json!([[end - 1, "0102"]]),
            json!([[0x200, "0g"]]),
            json!([["0x200", "ff"]]),
            json!([[0x200]]),
        ] {
            assert!(
                matches!(reply(bad.clone()), Verdict::Refused(_)),
                "{bad} is not a usable change"
            );
        }
        // Without the image there is nothing to read the changes against.
        let r = json!({"status": "ok", "region": [0, 16], "l1_changes": []});
        assert!(matches!(
            verdict_of_reply(&r, Arch::WormholeB0, None),
            Verdict::Refused(_)
        ));
    }

    #[test]
    fn hex_round_trips_and_rejects_junk() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
        assert_eq!(unhex("00ab7f"), Some(vec![0x00, 0xab, 0x7f]));
        assert_eq!(unhex("0g"), None);
        assert_eq!(unhex("abc"), None);
    }

    #[test]
    fn ttsim_undefined_behaviour_is_a_verdict_other_errors_refuse() {
        let tail = vec![
            "[12] some log".to_string(),
            "[40] ERROR: UndefinedBehavior: pacr: read interface crosses a row group".to_string(),
            "Traceback (most recent call last):".to_string(),
        ];
        let words = last_words(&tail);
        assert!(words.starts_with("[40] ERROR: UndefinedBehavior"));
        assert!(matches!(
            verdict_of_death(&words),
            Verdict::Stopped {
                kind: FaultKind::UndefinedBehavior,
                ..
            }
        ));
        assert!(matches!(
            verdict_of_death("[3] ERROR: UnimplementedFunctionality: tensix_dst"),
            Verdict::Refused(_)
        ));
    }

    #[test]
    fn a_reply_names_what_the_engine_did_not_observe() {
        let l1 = "00".repeat(Arch::WormholeB0.l1_size());
        let reply = |extra: Value| {
            let mut r = serde_json::json!({"status": "ok", "l1": l1, "region": [0x5f00, 0x12000]});
            if !extra.is_null() {
                r["unobserved"] = extra;
            }
            verdict_of_reply(&r, Arch::WormholeB0, None)
        };
        let Verdict::Observed(o) = reply(Value::Null) else {
            panic!("an ok reply is an observation")
        };
        assert_eq!(o.l1_unobserved, vec![0x5f00..0x12000]);
        let Verdict::Observed(o) = reply(serde_json::json!([[0, 4]])) else {
            panic!("an ok reply is an observation")
        };
        assert_eq!(o.l1_unobserved, vec![0x5f00..0x12000, 0..4]);
        assert!(matches!(
            reply(serde_json::json!([[8, 4]])),
            Verdict::Refused(_)
        ));
        assert!(matches!(
            reply(serde_json::json!([[0, 1u64 << 40]])),
            Verdict::Refused(_)
        ));
        assert!(matches!(
            reply(serde_json::json!([["a", 4]])),
            Verdict::Refused(_)
        ));
    }

    #[test]
    fn a_bare_python_error_says_where_it_was_raised() {
        let tail: Vec<String> = [
            "Traceback (most recent call last):",
            "  File \"/x/site-packages/framework/pe/run.py\", line 3, in tick",
            "    step()",
            "  File \"/x/site-packages/framework/pe/tensix/unpacker.py\", line 580, in read_config",
            "    assert whichADC != 3",
            "           ^^^^^^^^^^^^^",
            "AssertionError",
        ]
        .map(String::from)
        .into();
        assert_eq!(
            last_words(&tail),
            "AssertionError at pe/tensix/unpacker.py:580 in read_config: assert whichADC != 3"
        );
        let said = vec!["NotImplementedError: Packer 2 requests zero compression".to_string()];
        assert_eq!(last_words(&said), said[0]);
        assert_eq!(last_words(&[]), "the runner ended without a word");
    }
}
