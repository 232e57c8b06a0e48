"""Tests of the runner's protocol and target parsing, without an engine."""

import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from tensix_engine import runner


def test_targets_parse_and_bad_ones_are_named():
    assert runner.Target.parse("ttsim:/x/libttsim.so") == runner.Target("ttsim", "/x/libttsim.so")
    assert runner.Target.parse("wolfpine") == runner.Target("wolfpine", "")
    assert runner.Target.parse("device:2") == runner.Target("device", "2")
    with pytest.raises(ValueError, match="libttsim.so"):
        runner.Target.parse("ttsim")
    with pytest.raises(ValueError, match="unknown engine `qemu`"):
        runner.Target.parse("qemu:x")


class FakeRunner:
    def __init__(self):
        self.runs = []

    def hello(self):
        return {"status": "ok", "engine": "fake"}

    def run(self, req):
        self.runs.append(req)
        return {"status": "ok", "l1": "00"}


def test_serve_answers_each_request_on_one_line():
    fake = FakeRunner()
    requests = io.StringIO('{"op": "hello"}\n\n{"op": "run", "arch": "blackhole"}\n{"op": "dance"}\n')
    replies = io.StringIO()
    runner.serve(fake, requests, replies)
    lines = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert lines[0] == {"status": "ok", "engine": "fake"}
    assert lines[1] == {"status": "ok", "l1": "00"}
    assert lines[2]["status"] == "refused" and "dance" in lines[2]["message"]
    assert fake.runs == [{"op": "run", "arch": "blackhole"}]


def test_an_engine_that_cannot_open_is_a_refusal_on_the_protocol():
    # A process of its own: the runner takes over its standard output.
    here = pathlib.Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "tensix_engine", "--target", "ttsim:/nonexistent/libttsim.so"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(here)},
        check=False,
    )
    assert done.returncode == 2
    reply = json.loads(done.stdout.strip().splitlines()[-1])
    assert reply["status"] == "refused"
    assert "/nonexistent/libttsim.so" in reply["message"]


def test_arch_names_follow_the_vector_schema():
    assert runner.arch_name("ARCH.BLACKHOLE") == "blackhole"
    assert runner.arch_name("ARCH.WORMHOLE_B0") == "wormhole_b0"


def test_last_words_name_the_engine_error_and_where_a_bare_one_was_raised():
    ttsim = "[12] log line\n[40] ERROR: UndefinedBehavior: pacr: bad\nTraceback (most recent call last):\n"
    assert runner.last_words(ttsim) == "[40] ERROR: UndefinedBehavior: pacr: bad"
    wolfpine = (
        "Traceback (most recent call last):\n"
        '  File "/x/site-packages/framework/pe/run.py", line 3, in tick\n'
        "    step()\n"
        '  File "/x/site-packages/framework/pe/tensix/unpacker.py", line 580, in read_config\n'
        "    assert whichADC != 3\n"
        "           ^^^^^^^^^^^^^\n"
        "AssertionError\n"
    )
    assert runner.last_words(wolfpine) == (
        "AssertionError at pe/tensix/unpacker.py:580 in read_config: assert whichADC != 3"
    )
    # Wolfpine's server then stops the process that opened it, and says so.
    stopped = wolfpine + (
        "[server] stopping the tt-metal host (pid 18850): it is waiting for a reply the simulator"
        " can no longer send (AssertionError: ), which no simulated tile will ever send.\n"
    )
    assert runner.last_words(stopped) == runner.last_words(wolfpine)
    said = "NotImplementedError: Packer 2 requests zero compression\n"
    assert runner.last_words(said) == "NotImplementedError: Packer 2 requests zero compression"
    assert runner.last_words("") == "the runner ended without a word"


def test_changed_blocks_are_the_16_byte_blocks_that_differ_merged_into_runs():
    before = bytes(3 * 4096)
    after = bytearray(before)
    after[5] = 1  # block 0
    after[17] = 2  # block 1: joins block 0
    after[4096 + 40] = 3  # block 0x1020 alone, on another page
    after[-1] = 4  # the last block
    runs = runner.changed_blocks(before, bytes(after))
    assert [addr for addr, _ in runs] == [0, 4096 + 32, 3 * 4096 - 16]
    assert runs[0][1] == bytes(after[0:32]).hex()
    assert runs[1][1] == bytes(after[4096 + 32 : 4096 + 48]).hex()
    assert runner.changed_blocks(before, before) == []


def test_a_forked_run_answers_and_a_dying_one_leaves_its_last_words():
    assert runner.run_forked(lambda: {"status": "ok", "n": 7}, 30) == {"status": "ok", "n": 7}

    def dies():
        os.write(2, b"some noise\n[12] ERROR: UndefinedBehavior: tensix_pacr: bad\n")
        os._exit(1)

    reply = runner.run_forked(dies, 30)
    assert reply["status"] == "died"
    assert reply["message"] == "[12] ERROR: UndefinedBehavior: tensix_pacr: bad"

    def raises():
        raise RuntimeError("the simulator refused")

    reply = runner.run_forked(raises, 30)
    assert reply["status"] == "died" and "RuntimeError: the simulator refused" in reply["message"]


def test_a_forked_run_that_does_not_answer_is_killed_at_its_deadline():
    import time

    reply = runner.run_forked(lambda: time.sleep(60), 0.5)
    assert reply["status"] == "timeout"


def gone(pid: int) -> bool:
    """Whether process `pid` has ended (absent, or a zombie awaiting its
    reaper), waiting up to a few seconds for the kill to land."""
    import time

    for _ in range(100):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_what_a_forked_run_starts_ends_with_it():
    import subprocess

    # A server that holds the child's standard error, as a simulator's does:
    # left alive, it would keep the run from ending before its deadline.
    def starts_a_server():
        server = subprocess.Popen(["sleep", "60"])
        return {"status": "ok", "server": server.pid}

    reply = runner.run_forked(starts_a_server, 20)
    assert reply["status"] == "ok"
    assert gone(reply["server"])

    def starts_one_and_dies():
        server = subprocess.Popen(["sleep", "60"])
        os.write(2, f"server {server.pid}\n".encode())
        os._exit(3)

    reply = runner.run_forked(starts_one_and_dies, 20)
    assert reply["status"] == "died"
    assert gone(int(reply["message"].split()[1]))


BH_DESCRIPTOR = """grid:
  x_size: 17
  y_size: 12

pcie:
  [ 2-0, 11-0 ]

eth:
  [
   1-1, 16-1, 2-1, 15-1, 3-1, 14-1, 4-1, 13-1, 5-1, 12-1, 6-1, 11-1, 7-1, 10-1,
  ]

router_only:
  [
   1-0, 3-0, 4-0,
  ]

arch_name: BLACKHOLE
"""


def test_wolfpine_blackhole_descriptor_gets_one_pcie_core_and_twelve_eth_cores():
    fixed = runner.umd_blackhole_descriptor(BH_DESCRIPTOR)
    assert "pcie:\n  [ 11-0 ]" in fixed
    assert "router_only:\n  [\n   1-0, 2-0, 3-0, 4-0," in fixed
    eth = fixed.split("eth:\n  [\n")[1].split("]")[0]
    assert [c.strip() for c in eth.split(",") if c.strip()] == [
        "1-1",
        "16-1",
        "2-1",
        "15-1",
        "3-1",
        "14-1",
        "4-1",
        "13-1",
        "5-1",
        "12-1",
        "6-1",
        "11-1",
    ]
    # Anything else is left alone: a Wormhole descriptor, or a Blackhole one
    # this was not written against.
    assert runner.umd_blackhole_descriptor(BH_DESCRIPTOR.replace("BLACKHOLE", "WORMHOLE")) is None
    assert runner.umd_blackhole_descriptor(BH_DESCRIPTOR.replace("[ 2-0, 11-0 ]", "[ 11-0 ]")) is None


def test_a_blackhole_simulator_directory_is_given_through_a_copy(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    sim = tmp_path / "bh"
    sim.mkdir()
    (sim / "run.sh").write_text("#!/bin/sh\n")
    (sim / "soc_descriptor.yaml").write_text(BH_DESCRIPTOR)
    copy = pathlib.Path(runner.umd_blackhole_dir(str(sim)))
    assert copy.parent == tmp_path / "tmp"
    assert (copy / "run.sh").resolve() == (sim / "run.sh").resolve()
    assert "pcie:\n  [ 11-0 ]" in (copy / "soc_descriptor.yaml").read_text()
    # Another runner process (no cache) shares the copy and leaves nothing else.
    assert runner.umd_blackhole_dir.__wrapped__(str(sim)) == str(copy)
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == [copy.name]
    other = tmp_path / "wh"
    other.mkdir()
    (other / "soc_descriptor.yaml").write_text("arch_name: WORMHOLE_B0\n")
    assert runner.umd_blackhole_dir(str(other)) == str(other)
