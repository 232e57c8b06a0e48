"""Run tensix-harness program images on one Tensix tile through tt-umd.

The runner serves a line protocol on its standard input and output so that
one engine process (a simulator, or an open card) is kept across many
vectors. Each request and reply is one JSON object on one line.

Requests:
  {"op": "hello"}
  {"op": "run", "arch": "blackhole", "l1_fill": 0, "l1": [[addr, "hex"], ...],
   "reset_pcs": [pc0, pc1, pc2], "flags": [a0, a1, a2], "region": [start, end],
   "timeout": seconds}

Replies:
  {"status": "ok", ...}             hello: engine, version, arch, tile, l1_size
                                    run: "l1" (hex of all of L1) or, when the
                                    request says "reply": "changes",
                                    "l1_changes" ([[addr, "hex"], ...]: the
                                    16-byte blocks that differ from the
                                    image written), "seconds",
                                    "region" (the image's own, not compared),
                                    "unobserved" (optional: more [start, end]
                                    ranges the engine itself changed)
  {"status": "refused", "message"}  the engine would not take the image
  {"status": "timeout", "message"}  the TRISCs did not finish in time
  {"status": "died", "message"}     the simulator ended the run's process:
                                    its last words from standard error

A simulator runs each image in a forked child of the runner (`run_forked`),
so one that stops on something it does not model ends that run only. On a
card the runner itself opens the device; should tt-umd fail there, the
runner exits, and the harness reads its last words from standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import hashlib
import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

RUN_DONE = 0x5E700002
DEFAULT_RESET_PCS = (0x6000, 0xA000, 0xE000)
BH_TRISC_RESET_PC_REGS = (0xFFB12228, 0xFFB1222C, 0xFFB12230)
BH_TRISC_RESET_PC_OVERRIDE = 0xFFB12234
# RISCV_DEBUG_REG_SOFT_RESET_0: a set bit holds a core in reset; TRISC0..2
# are bits 12..14 (tt-isa-documentation WormholeB0 SoftReset.md).
SOFT_RESET_0 = 0xFFB121B0
TRISC_RESET_BITS = 0b111 << 12
# NCRISC is bit 18 (ttsim src/tile.cpp soft_reset_bits: 0x40000).
NCRISC_RESET_BIT = 1 << 18
# Blackhole NCRISC reset-PC override (tt-metal blackhole tensix.h).
BH_NCRISC_RESET_PC = 0xFFB12238
BH_NCRISC_RESET_PC_OVERRIDE = 0xFFB1223C
# `j .` (RV32I jal x0, 0): where Wolfpine's BRISC is parked.
JUMP_TO_SELF = 0x0000006F

# One worker tile per architecture (translated coordinates); tt-umd's ttsim
# README: worker 1-2 on Blackhole, 1-1 on Wormhole B0.
DEFAULT_TILE = {"blackhole": (1, 2), "wormhole_b0": (1, 1)}
L1_SIZE = {"blackhole": 1536 * 1024, "wormhole_b0": 1464 * 1024}


def arch_name(umd_arch) -> str:
    text = str(umd_arch).lower()
    if "blackhole" in text:
        return "blackhole"
    if "wormhole" in text:
        return "wormhole_b0"
    return text


@dataclass
class Target:
    """Where the engine runs: `ttsim:PATH`, `wolfpine[:DIR]` or `device[:INDEX]`."""

    kind: str
    where: str

    def text(self) -> str:
        return f"{self.kind}:{self.where}" if self.where else self.kind

    @staticmethod
    def parse(text: str) -> Target:
        kind, _, where = text.partition(":")
        if kind not in ("ttsim", "wolfpine", "device"):
            raise ValueError(f"unknown engine `{kind}`: ttsim:PATH, wolfpine[:DIR] or device[:INDEX]")
        if kind == "ttsim" and not where:
            raise ValueError("ttsim needs the path of a libttsim.so: ttsim:PATH")
        return Target(kind, where)


def wolfpine_dir(where: str) -> str:
    """Wolfpine's simulator directory: `where` itself, or for `wormhole` /
    `blackhole` (and by default) the one the installed package ships (the
    wolfpine package installs as `framework`). A Blackhole directory is
    given through a copy whose SoC descriptor tt-umd accepts
    ([`umd_blackhole_dir`])."""
    if where and where not in ("wormhole", "blackhole"):
        return umd_blackhole_dir(where)
    from framework import sim  # noqa: PLC0415 (optional dependency)

    return umd_blackhole_dir(str(sim.simulator_dir(where or "wormhole")))


def umd_blackhole_descriptor(text: str) -> str | None:
    """Wolfpine's Blackhole SoC descriptor as tt-umd 0.9.14 accepts it, or
    None if `text` is not the one this was written against.

    tt-umd takes a descriptor with two PCIe cores and 14 ETH cores for a full
    Blackhole, whose harvesting it then insists on ("Exactly 2 or 14 ETH
    cores should be harvested on full Blackhole"); a simulator reports none
    harvested. ttsim's Blackhole descriptor, which tt-umd accepts, lists one
    PCIe core (11-0) with 2-0 router-only. The copy does the same and leaves
    out two ETH cores (7-1, 10-1), which Wolfpine does not model."""
    edits = [
        ("pcie:\n  [ 2-0, 11-0 ]", "pcie:\n  [ 11-0 ]"),
        ("router_only:\n  [\n   1-0, 3-0,", "router_only:\n  [\n   1-0, 2-0, 3-0,"),
        (" 6-1, 11-1, 7-1, 10-1,\n", " 6-1, 11-1,\n"),
    ]
    if "arch_name: BLACKHOLE" not in text or not all(old in text for old, _ in edits):
        return None
    for old, new in edits:
        text = text.replace(old, new, 1)
    return text


@functools.cache
def umd_blackhole_dir(sim_dir: str) -> str:
    """`sim_dir`, or for a Wolfpine Blackhole directory a copy of it for
    tt-umd: its `run.sh` (a link: the script finds Wolfpine through its own
    real path) and the accepted descriptor. The copy is named by what it
    holds, so every runner process (one is killed at each timeout, before
    any exit hook runs) shares one instead of leaving its own behind."""
    path = pathlib.Path(sim_dir)
    try:
        fixed = umd_blackhole_descriptor((path / "soc_descriptor.yaml").read_text())
    except OSError:
        return sim_dir
    if fixed is None:
        return sim_dir
    script = (path / "run.sh").resolve()
    key = hashlib.sha256(f"{script}\0{fixed}".encode()).hexdigest()[:16]
    copy = pathlib.Path(tempfile.gettempdir()) / f"tensix-wolfpine-blackhole-{key}"
    if not copy.is_dir():
        # Built aside and renamed into place, so a reader never sees half.
        draft = pathlib.Path(tempfile.mkdtemp(prefix="tensix-wolfpine-blackhole-draft-"))
        (draft / "run.sh").symlink_to(script)
        (draft / "soc_descriptor.yaml").write_text(fixed)
        try:
            draft.rename(copy)
        except OSError:
            shutil.rmtree(draft, ignore_errors=True)  # another runner got there first
    return str(copy)


def open_device(target: Target):
    import tt_umd  # noqa: PLC0415 (imported late so --help works without it)

    if target.kind == "ttsim":
        return tt_umd.create_simulation_tt_device(target.where)
    if target.kind == "wolfpine":
        return tt_umd.create_simulation_tt_device(wolfpine_dir(target.where))
    index = int(target.where or "0")
    ids = tt_umd.PCIDevice.enumerate_devices()
    if index >= len(ids):
        raise RuntimeError(f"no card {index}: tt-umd found {len(ids)}")
    dev = tt_umd.TTDevice.create(ids[index])
    dev.init_tt_device()
    return dev


class Runner:
    def __init__(self, target: Target, tile: tuple[int, int] | None):
        import tt_umd  # noqa: PLC0415

        self.umd = tt_umd
        self.target = target
        # A simulator is opened afresh for every run, in a forked child:
        # neither ttsim nor Wolfpine models a reset of the Tensix coprocessor
        # (ttsim's soft reset register reaches only the RISC-V cores:
        # src/tile.cpp, RISCV_DEBUG_REGS_SOFT_RESET_0), so Config, ADCs,
        # SrcA/SrcB valid bits and semaphores would carry over from one
        # vector to the next. A card cannot be reopened that way; its tile
        # keeps that state.
        #
        # The child ends without closing the simulator, and what it started
        # (the Wolfpine server is a process tt-umd starts) ends with it:
        # - ttsim ends its process on what it does not model (src/common.cpp
        #   `ttsim_error`); that ends one run, not the runner, so there is no
        #   Python start-up per refused vector;
        # - closing a Wolfpine device costs 5 s in tt-umd, whose notification
        #   thread waits out its poll while holding the GIL (measured with
        #   tt-umd 0.9.14: open 0.3 s, close 5.0 s).
        # The runner itself never opens a simulator: an open simulator's
        # mappings are too large to fork.
        self.isolate = target.kind != "device"
        if self.isolate:
            self.dev = None
            probe = run_forked(lambda: {"status": "ok", "arch": arch_name(open_device(target).get_arch())}, 120)
            if probe.get("status") != "ok" or "arch" not in probe:
                raise RuntimeError(probe.get("message", "the simulator did not say its architecture"))
            self.arch = probe["arch"]
        else:
            self.dev = open_device(target)
            self.arch = arch_name(self.dev.get_arch())
        self.tile = tile or DEFAULT_TILE[self.arch]
        self.l1_size = L1_SIZE[self.arch]
        self.core = tt_umd.CoreCoord(self.tile[0], self.tile[1], tt_umd.CoreType.TENSIX, tt_umd.CoordSystem.TRANSLATED)

    def hello(self) -> dict:
        try:
            from importlib.metadata import version  # noqa: PLC0415

            umd_version = version("tt-umd")
        except Exception:  # noqa: BLE001 (metadata is informative only)
            umd_version = "unknown"
        return {
            "status": "ok",
            "target": self.target.text(),
            "umd": umd_version,
            "arch": self.arch,
            "tile": list(self.tile),
            "l1_size": self.l1_size,
        }

    def run(self, req: dict) -> dict:
        if req["arch"] != self.arch:
            return {"status": "refused", "message": f"the vector is for {req['arch']}, the engine is {self.arch}"}
        if self.isolate:
            return run_forked(lambda: self.run_here(req), float(req.get("timeout", 10)) * 1.5 + 5)
        return self.run_here(req)

    def run_here(self, req: dict) -> dict:
        """One run on the open device, or on one opened for it."""
        x, y = self.tile
        risc = self.umd.RiscType
        if self.dev is None:
            self.dev = open_device(self.target)
        self.dev.assert_risc_reset(self.core, risc.ALL)
        image = bytearray([req["l1_fill"]]) * self.l1_size
        for addr, text in req["l1"]:
            data = bytes.fromhex(text)
            image[addr : addr + len(data)] = data
        self.dev.noc_write(x, y, 0, bytes(image))
        moved = list(req["reset_pcs"]) != list(DEFAULT_RESET_PCS)
        if moved and self.arch != "blackhole":
            return {"status": "refused", "message": f"the image moved its reset PCs, which {self.arch} cannot"}
        # Blackhole TRISC reset-PC override debug registers (ttsim
        # src/tile.cpp riscv_debug_regs_wr32; tt-metal blackhole tensix.h),
        # set even where the image sits at the usual PCs: without them
        # Wolfpine boots its TRISCs at tt-metal's firmware bases
        # (framework/arch/blackhole.py, trisc0_firmware_base = 0x65E0).
        overridden = self.arch == "blackhole"
        if overridden:
            for reg, pc in zip(BH_TRISC_RESET_PC_REGS, req["reset_pcs"], strict=True):
                self.dev.noc_write32(x, y, reg, pc)
            self.dev.noc_write32(x, y, BH_TRISC_RESET_PC_OVERRIDE, 0b111)
        start = time.monotonic()
        unobserved = self.start_triscs()
        deadline = start + float(req.get("timeout", 10))
        pending = [f + 4 for f in req["flags"]]
        while pending:
            pending = [a for a in pending if self.dev.noc_read32(x, y, a) != RUN_DONE]
            if pending and time.monotonic() > deadline:
                self.dev.assert_risc_reset(self.core, risc.ALL)
                threads = [req["flags"].index(a - 4) for a in pending]
                return {"status": "timeout", "message": f"TRISC{threads} did not finish in {req.get('timeout', 10)} s"}
        seconds = time.monotonic() - start
        self.dev.assert_risc_reset(self.core, risc.ALL)
        if overridden:
            self.dev.noc_write32(x, y, BH_TRISC_RESET_PC_OVERRIDE, 0)
        l1 = bytes(self.dev.noc_read(x, y, 0, self.l1_size))
        reply = {"status": "ok", "seconds": seconds, "region": req["region"]}
        if req.get("reply") == "changes":
            reply["l1_changes"] = changed_blocks(bytes(image), l1)
        else:
            reply["l1"] = l1.hex()
        if unobserved:
            reply["unobserved"] = unobserved
        return reply

    def start_triscs(self) -> list[list[int]]:
        """Take TRISC0..2 out of reset, BRISC and NCRISC staying put; returns
        the L1 ranges that doing so changed."""
        x, y = self.tile
        risc = self.umd.RiscType
        if self.target.kind != "wolfpine":
            for r in (risc.TRISC0, risc.TRISC1, risc.TRISC2):
                self.dev.deassert_risc_reset(self.core, r)
            return []
        # Wolfpine pumps its clock only while a BRISC is out of reset, and its
        # wire deassert releases BRISC, never a TRISC alone
        # (framework/bridge/device.py, deassert_reset_without_pump). So BRISC
        # is parked on `j .` at its reset PC, L1 address 0, which the reply
        # then names as not observed, and the TRISCs leave reset through the
        # soft-reset register itself.
        self.dev.noc_write32(x, y, 0, JUMP_TO_SELF)
        if self.arch == "blackhole":
            # Wolfpine's Blackhole lets NCRISC out with BRISC (it ran the L1
            # fill from its firmware base, 0x5BE0); should it start, it
            # starts on the same `j .`.
            self.dev.noc_write32(x, y, BH_NCRISC_RESET_PC, 0)
            self.dev.noc_write32(x, y, BH_NCRISC_RESET_PC_OVERRIDE, 1)
        self.dev.deassert_risc_reset(self.core, risc.TRISC0)
        held = self.dev.noc_read32(x, y, SOFT_RESET_0)
        self.dev.noc_write32(x, y, SOFT_RESET_0, (held | NCRISC_RESET_BIT) & ~TRISC_RESET_BITS)
        return [[0, 4]]


def changed_blocks(before: bytes, after: bytes, block: int = 16, page: int = 4096) -> list[list]:
    """The 16-byte blocks where `after` differs from `before`, merged into
    [addr, hex] runs (pages compared first: most of L1 is untouched)."""
    out: list[list] = []
    start = end = None
    for p in range(0, len(after), page):
        if before[p : p + page] == after[p : p + page]:
            continue
        for b in range(p, min(p + page, len(after)), block):
            if before[b : b + block] == after[b : b + block]:
                continue
            if end == b:
                end = b + block
            else:
                if start is not None:
                    out.append([start, after[start:end].hex()])
                start, end = b, b + block
    if start is not None:
        out.append([start, after[start:end].hex()])
    return out


def forked_child(work, reply_r: int, reply_w: int, err_r: int, err_w: int) -> None:
    """The child of `run_forked`: run `work`, write its reply, and end
    without returning (no Python clean-up of the parent's state), taking
    the processes it started (a simulator's server) with it."""
    status = 0
    try:
        os.close(reply_r)
        os.close(err_r)
        os.dup2(err_w, 1)
        os.dup2(err_w, 2)
        data = (json.dumps(work()) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(reply_w, view) :]
    except BaseException:  # noqa: BLE001 (every failure is this run's verdict)
        import traceback  # noqa: PLC0415

        os.write(2, traceback.format_exc().encode())
        status = 1
    finally:
        try:
            end_children(os.getpid())
        finally:
            os._exit(status)


def run_forked(work, deadline_seconds: float) -> dict:
    """`work()` in a forked child whose standard output and error are a
    pipe of their own: a simulator that ends its process ends the child,
    and the child's last words become a `died` reply. A child that does not
    answer before the deadline is killed.

    Whatever the child started ends with it. A simulator's server (Wolfpine's
    runs in a session of its own) would otherwise outlive the child and hold
    its error pipe open until the deadline. The child ends its children; the
    runner, as the subreaper of its descendants, ends any a dead child left,
    once they have had `LAST_WORDS_SECONDS` to finish saying why."""
    become_subreaper()
    reply_r, reply_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        forked_child(work, reply_r, reply_w, err_r, err_w)
    os.close(reply_w)
    os.close(err_w)
    chunks: dict[int, list[bytes]] = {reply_r: [], err_r: []}
    open_fds = [reply_r, err_r]
    limit = time.monotonic() + deadline_seconds
    timed_out = False
    while open_fds:
        left = limit - time.monotonic()
        if left <= 0:
            # Past the deadline while the child runs; or past the grace its
            # leftovers had to finish writing, which is no timeout.
            timed_out = reply_r in open_fds
            break
        ready, _, _ = select.select(open_fds, [], [], left)
        for fd in ready:
            data = os.read(fd, 1 << 20)
            if data:
                chunks[fd].append(data)
                if fd == err_r and len(chunks[fd]) > 64:
                    del chunks[fd][:-64]
            else:
                open_fds.remove(fd)
                if fd == reply_r:
                    # The child has ended: its reply end is not inherited.
                    limit = min(limit, time.monotonic() + LAST_WORDS_SECONDS)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    end_children(os.getpid())
    os.close(reply_r)
    os.close(err_r)
    if timed_out:
        return {"status": "timeout", "message": f"the run did not end in {deadline_seconds:.0f} s"}
    text = b"".join(chunks[reply_r]).decode(errors="replace").strip()
    if text:
        try:
            return json.loads(text)
        except ValueError:
            pass
    return {"status": "died", "message": last_words(b"".join(chunks[err_r]).decode(errors="replace"))}


# How long what a dead child left behind may go on writing its error pipe.
LAST_WORDS_SECONDS = 5.0


@functools.cache
def become_subreaper() -> None:
    """Have orphaned descendants handed to this process rather than to init
    (Linux `PR_SET_CHILD_SUBREAPER`), so `end_children` can reach them."""
    import ctypes  # noqa: PLC0415

    pr_set_child_subreaper = 36
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from /proc."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def end_children(pid: int) -> None:
    """SIGKILL every child of `pid` (this process's own, or those handed to
    it as subreaper), and reap them when they are this process's; repeated
    for grandchildren orphaned along the way, a bounded number of times."""
    for _ in range(8):
        children = children_of(pid)
        if not children:
            return
        for child in children:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        if pid == os.getpid():
            for child in children:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(child, 0)


def serve(runner: Runner, requests, replies) -> None:
    for raw in requests:
        line = raw.strip()
        if not line:
            continue
        req = json.loads(line)
        op = req.get("op")
        if op == "hello":
            reply = runner.hello()
        elif op == "run":
            reply = runner.run(req)
        else:
            reply = {"status": "refused", "message": f"unknown op `{op}`"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def last_words(stderr: str) -> str:
    """Why a runner ended: ttsim's `ERROR: <category>: ...` line (it prints
    that and exits, src/common.cpp `ttsim_error`), a Python error, or the
    last line. A Python error that says nothing more than its name (a bare
    `assert` in Wolfpine) is followed by where it was raised. Wolfpine's
    note that it stopped the process waiting on it is an effect, not the
    cause, and is passed over."""
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not line.startswith("[server] stopping the tt-metal host")
    ]
    for mark in ("ERROR:", "Error"):
        found = [i for i, line in enumerate(lines) if mark in line]
        if found:
            i = found[-1]
            bare = lines[i].rstrip(":").isidentifier()
            return lines[i] + (raised_at(lines[:i]) if bare else "")
    return lines[-1] if lines else "the runner ended without a word"


def raised_at(before: list[str]) -> str:
    """` at FILE:LINE in FUNC: CODE` from the innermost frame of a traceback
    that ends just before a bare Python error name, else nothing."""
    frames = [i for i, line in enumerate(before) if line.startswith('File "')]
    if not frames or len(before) - frames[-1] > 4:
        return ""
    frame = before[frames[-1]]
    code = before[frames[-1] + 1] if frames[-1] + 1 < len(before) else ""
    try:
        path, rest = frame[len('File "') :].split('", line ', 1)
        number, func = rest.split(", in ", 1)
    except ValueError:
        return ""
    where = "/".join(path.split("/")[-3:])
    return f" at {where}:{number} in {func}" + (f": {code}" if code and not code.startswith("^") else "")


def run_in_child(target: str, tile: str | None, request: dict, timeout: float) -> tuple[dict, dict | None]:
    """Run one image in a runner process of its own, so that an engine that
    ends its process ends only this vector. Returns the reply and the
    engine's hello."""
    package_parent = str(pathlib.Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": package_parent}
    with subprocess.Popen(
        [sys.executable, "-m", "tensix_engine", "--target", target, *(["--tile", tile] if tile else [])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        lines = json.dumps({"op": "hello"}) + "\n" + json.dumps(request) + "\n"
        try:
            out, err = proc.communicate(lines, timeout=timeout * 2 + 60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return {"status": "timeout", "message": f"no answer in {timeout * 2 + 60:.0f} s"}, None
    replies = [json.loads(line) for line in out.splitlines() if line.strip()]
    if replies and replies[0].get("status") != "ok":
        return replies[0], None
    if len(replies) < 2:
        return {"status": "died", "message": last_words(err)}, replies[0] if replies else None
    return replies[1], replies[0]


def run_bundle(bundle: pathlib.Path, target: str, tile: str | None) -> int:
    """Run every image of a bundle made by `tensix-harness device bundle` and
    write one result file per vector under `results/`."""
    manifest = json.loads((bundle / "manifest.json").read_text())
    results = bundle / "results"
    results.mkdir(exist_ok=True)
    counts: dict[str, int] = {}
    for entry in manifest["vectors"]:
        if "image" not in entry:
            continue
        request = json.loads((bundle / entry["image"]).read_text())
        reply, hello = run_in_child(target, tile, request, float(request.get("timeout", 30)))
        reply.update(
            name=entry["name"],
            date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
            engine=hello,
        )
        path = bundle / entry["result"]
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(reply) + "\n")
        os.replace(tmp, path)
        counts[reply["status"]] = counts.get(reply["status"], 0) + 1
        print(f"{reply['status']:8} {entry['name']} {reply.get('message', '')}", file=sys.stderr)
    print(f"wrote {sum(counts.values())} results to {results}: {counts}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="tensix_engine", description=__doc__.splitlines()[0])
    p.add_argument("--target", required=True, help="ttsim:PATH | wolfpine[:DIR] | device[:INDEX]")
    p.add_argument("--tile", help="worker tile X,Y (translated); default per architecture")
    p.add_argument("--bundle", type=pathlib.Path, help="run a bundle's images and write its results/")
    args = p.parse_args(argv)
    if args.bundle is not None:
        return run_bundle(args.bundle, args.target, args.tile)
    # The protocol owns the original standard output; whatever a simulator
    # prints goes to standard error, where the harness reads its last words.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    try:
        target = Target.parse(args.target)
        tile = tuple(int(v) for v in args.tile.split(",")) if args.tile else None
        runner = Runner(target, tile)
    except Exception as e:  # noqa: BLE001 (any failure to open is the verdict)
        replies.write(json.dumps({"status": "refused", "message": f"cannot open {args.target}: {e}"}) + "\n")
        replies.flush()
        return 2
    serve(runner, sys.stdin, replies)
    return 0


if __name__ == "__main__":
    sys.exit(main())
