"""The kladder package against the real command line ($KLADDER) on the default device.

Tiny sizes and the quickest protocol (kladder.QUICK: --warmup 0 --repeats 1 --min-time 0);
about ten seconds on PoCL with two cores, most of it the timeout and the interruption.
Run: KLADDER=build/kladder PYTHONPATH=python python3 -m unittest discover -s python/tests
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

import kladder

QUICK = ["--warmup", "0", "--repeats", "1", "--min-time", "0"]

# Users' kernels the test suite keeps (tests/user_kernels): one that computes the wrong
# thing (its row must fail verification), one that does not compile, one that never ends.
USER_KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                            "user_kernels")
WRONG_ROWDOT = os.path.join(USER_KERNELS, "wrong_result.cl")
BROKEN_ROWDOT = os.path.join(USER_KERNELS, "build_error.cl")
ENDLESS_COPY = os.path.join(USER_KERNELS, "endless.cl")

# What `kladder peak --format json` prints when its cache holds the ceilings.
CACHED_PEAK = """\
{"workload": "peak", "cached": true, "device": "Some GPU", "driver": "1.0", "date": "2026-01-02T03:04:05Z",
 "copy_gbps": 113.778, "read_gbps": 55.7624, "write_gbps": 21.1066, "f32_gflops": 249.761, "f64_gflops": 120.544, "i32_giops": 182.259, "tf32_gflops": 0, "f16_gflops": 0,
 "launch_us": 20.17, "launch_host_us": 35.26, "empty_us": 0.19,
 "h2d_pageable_gbps": 1.822, "d2h_pageable_gbps": 1.914, "h2d_pinned_gbps": 1.225, "d2h_pinned_gbps": 1.89, "map_gbps": 1.927, "unmap_gbps": 1.953}
"""


def setUpModule():
    if not os.environ.get("KLADDER"):
        raise RuntimeError("set KLADDER to the kladder binary, e.g. KLADDER=build/kladder")


def close(a, b, rel=1e-6):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel)


class Ladders(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def test_gemm_rows_verified_and_as_the_json_says(self):
        run = kladder.run("gemm", size=16, rungs=["01", "10"], params={"TS": 8}, seed=3,
                          **kladder.QUICK)
        self.assertTrue(run.ok)
        self.assertEqual(run.exit_code, 0)
        self.assertEqual(run.workload, "gemm")
        self.assertEqual(run.params, {"M": 16, "N": 16, "K": 16, "type": "float", "seed": 3})
        self.assertEqual(run.protocol["warmup"], 0)
        self.assertEqual(run.protocol["min_repeats"], 1)
        self.assertTrue(run.device["name"])
        self.assertIn("--param", run.command)
        self.assertIn("TS=8", run.command)
        self.assertEqual([r.rung for r in run], ["01_naive", "10_tiled"])
        self.assertEqual(run.verified, run.rows)
        self.assertEqual(run.failed, [])
        self.assertFalse(run.interrupted)
        self.assertIsNone(run.stopped_by)
        self.assertIn("-DTS=8", run.row("10").build_options)
        for row, raw in zip(run.rows, run.raw["results"]):
            for name in ("rung", "status", "median_s", "min_s", "max_s", "repeats", "gflops",
                         "gbps", "pct_ceiling", "precision", "error", "flops", "bytes", "note",
                         "config", "speedup_first"):
                self.assertEqual(getattr(row, name), raw[name], name)
            self.assertEqual(row.precision, "fp32")
            self.assertGreater(row.repeats, 0)
            self.assertLessEqual(row.min_s, row.median_s)
            self.assertLessEqual(row.median_s, row.max_s)
            self.assertEqual(row.flops, 2 * 16 ** 3)
            self.assertTrue(close(row.gflops, row.flops / row.median_s * 1e-9), row)
            self.assertTrue(close(row.gbps, row.bytes / row.median_s * 1e-9), row)
            self.assertLess(row.error, 1e-5)
            self.assertEqual(len(row.samples), row.repeats)
        self.assertEqual(run.row("01_naive").speedup_first, 1)

    def test_same_rows_as_the_command_line(self):
        args = ["rowdot", "--rows", "37", "--d", "11", "--rung", "01,03", "--type", "double"]
        out = subprocess.run([os.environ["KLADDER"], *args, *QUICK, "--format", "json"],
                             check=True, capture_output=True, text=True).stdout
        cli = json.loads(out)
        run = kladder.run("rowdot", rows=37, d=11, rungs="01,03", type="double",
                          **kladder.QUICK)
        self.assertEqual(run.params, cli["params"])
        self.assertEqual(run.params["Y"], 37)
        self.assertEqual(run.params["type"], "double")
        self.assertEqual([(r.rung, r.status, r.flops, r.bytes) for r in run],
                         [(r["rung"], r["status"], r["flops"], r["bytes"])
                          for r in cli["results"]])
        self.assertTrue(all(r.verified for r in run))

    def test_saved_run_reads_back(self):
        run = kladder.run("copy", n=4096, rungs=["ilp1", "ilp4"], **kladder.QUICK)
        self.assertTrue(all(r.gbps and r.gbps > 0 for r in run.verified))
        self.assertEqual(len(run.verified), 2)
        path = os.path.join(self.tmp, "run.json")
        run.save(path)
        again = kladder.load(path)
        self.assertEqual(again.rows, run.rows)
        self.assertEqual(again.params, run.params)

    def test_unknown_rung_is_exit_2_with_the_message(self):
        with self.assertRaises(kladder.KladderError) as caught:
            kladder.run("gemm", size=4, rungs=["zz"], **kladder.QUICK)
        e = caught.exception
        self.assertEqual(e.exit_code, 2)
        self.assertIn('unknown gemm rung "zz"', e.message)
        self.assertIn('unknown gemm rung "zz"', str(e))
        self.assertIn("code 2", str(e))
        self.assertIsNone(e.run)

    def test_unknown_option_is_exit_2(self):
        with self.assertRaises(kladder.KladderError) as caught:
            kladder.run("gemm", size=4, frob=1)
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIn('unknown option "--frob"', caught.exception.message)

    def test_failed_rung_is_a_row_and_exit_1(self):
        run = kladder.run("rowdot", rows=37, d=11, rungs=["01", "wrong_result"],
                          kernels=[WRONG_ROWDOT], **kladder.QUICK)
        self.assertEqual(run.exit_code, 1)
        self.assertFalse(run.ok)
        self.assertEqual([r.rung for r in run.failed], ["wrong_result"])
        self.assertTrue(run.row("01").verified)
        failed = run.row("wrong_result")
        self.assertIsNone(failed.gflops)
        self.assertIsNone(failed.median_s)
        self.assertIn("differ from the reference", failed.note)
        with self.assertRaises(kladder.KladderError) as caught:
            run.check()
        self.assertEqual(caught.exception.exit_code, 1)
        self.assertIs(caught.exception.run, run)
        with self.assertRaises(kladder.KladderError) as caught:
            kladder.run("rowdot", rows=37, d=11, rungs=["wrong_result"],
                        kernels=[WRONG_ROWDOT], check=True, **kladder.QUICK)
        self.assertEqual(caught.exception.exit_code, 1)
        self.assertEqual([r.rung for r in caught.exception.run.failed], ["wrong_result"])

    def test_build_error_is_exit_3_before_any_rung_runs(self):
        # A user's kernel is built and checked before the ladder's first rung: a build
        # error costs no measurement, and there are no rows to return.
        with self.assertRaises(kladder.KladderError) as caught:
            kladder.run("rowdot", rows=37, d=11, rungs=["01", "build_error"],
                        kernels=[BROKEN_ROWDOT], **kladder.QUICK)
        e = caught.exception
        self.assertEqual(e.exit_code, 3)
        self.assertIn("build_error.cl", e.message)
        self.assertIsNone(e.run)

    def test_kernel_timeout_is_exit_4_and_a_timeout_row(self):
        run = kladder.run("copy", n=4096, rungs=["ilp1", "endless"], kernels=[ENDLESS_COPY],
                          kernel_timeout=2, **kladder.QUICK)
        self.assertEqual(run.exit_code, 4)
        self.assertTrue(run.interrupted)
        self.assertIn("kernel-timeout", run.stopped_by)
        self.assertEqual({r.rung: r.status for r in run},
                         {"ilp1": "verified", "endless": "timeout"})
        self.assertEqual([r.rung for r in run.timed_out], ["endless"])

    def test_timeout_interrupts_and_keeps_the_rows_so_far(self):
        # Host rungs timed for 2 s each: the signal after 3 s comes during the first two.
        run = kladder.run("gemm", size=48, rungs="host_ijk,host_ikj,host_jik", host_rungs=True,
                          warmup=0, min_time=2, timeout=3)
        self.assertEqual(run.exit_code, 130)
        self.assertTrue(run.interrupted)
        self.assertEqual(run.stopped_by, "SIGINT")
        self.assertFalse(run.ok)
        self.assertLess(len(run.verified), 3)
        statuses = [r.status for r in run]
        self.assertTrue(all(s == "verified" for s in statuses[:-1]), statuses)
        if statuses and statuses[-1] != "verified":
            self.assertEqual(statuses[-1], "skipped")
            self.assertIn("interrupted", run.rows[-1].note)


class Fleets(unittest.TestCase):
    """Several devices at once: PoCL's two "pthread" devices stand in for two GPUs."""

    def test_device_all_is_a_fleet_of_runs(self):
        if os.environ.get("KLADDER_DEVICE", "").startswith("cuda"):
            self.skipTest("the suite runs on a CUDA device (tests/gpu/cuda.sh): no PoCL pair here")
        env = {"POCL_DEVICES": "pthread pthread"}
        fleet = kladder.run("gemm", size=8, rungs=["01", "03"], device="all", env=env,
                            **kladder.QUICK)
        self.assertIsInstance(fleet, kladder.Fleet)
        self.assertEqual([m.device for m in fleet.members], ["opencl:0:0", "opencl:0:1"])
        self.assertEqual(len(fleet.runs), 2)
        self.assertTrue(all(r.ok and len(r.verified) == 2 for r in fleet.runs))
        self.assertEqual([s["rung"] for s in fleet.summary], ["01_naive", "03_private_acc"])
        for s in fleet.summary:  # each member's value is its own run's rate
            self.assertEqual(s["values"], [r.row(s["rung"]).gflops for r in fleet.runs])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fleet.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(fleet.raw, f)
            self.assertIsInstance(kladder.load(path), kladder.Fleet)


class Peaks(unittest.TestCase):
    def test_measured_quick(self):
        peak = kladder.peak(quick=True, bytes=65536, vec=[4], **kladder.QUICK)
        self.assertFalse(peak.cached)
        self.assertIsNotNone(peak.run)
        self.assertEqual(peak.run.workload, "peak")
        self.assertEqual(peak.run.params["bytes"], 65536)
        copy = peak.run.row("copy_v4")
        self.assertTrue(copy.verified)
        self.assertEqual(peak.ceilings["copy_gbps"], copy.gbps)
        self.assertEqual(peak.ceilings["f32_gflops"], peak.run.row("fma_f32").gflops)
        self.assertGreater(peak.ceilings["f32_gflops"], 0)
        self.assertTrue(set(kladder.ROOFS) <= set(peak.ceilings), set(peak.ceilings))
        if "nvidia" not in peak.run.device.get("vendor", "").lower():  # no tensor cores there
            self.assertIsNone(peak.ceilings["tf32_gflops"])

    def test_cached(self):
        peak = kladder.Peak.from_json(json.loads(CACHED_PEAK))
        self.assertTrue(peak.cached)
        self.assertIsNone(peak.run)
        self.assertEqual(peak.device, "Some GPU")
        self.assertEqual(peak.ceilings["copy_gbps"], 113.778)
        self.assertEqual(peak.ceilings["launch_us"], 20.17)
        self.assertIsNone(peak.ceilings["tf32_gflops"])


class Binary(unittest.TestCase):
    def test_found_through_KLADDER(self):
        self.assertEqual(os.path.realpath(kladder.find_binary()),
                         os.path.realpath(os.environ["KLADDER"]))

    def test_missing_binary_is_a_clear_error(self):
        with mock.patch.dict(os.environ, {"KLADDER": "/nonexistent/kladder"}):
            with self.assertRaisesRegex(kladder.KladderNotFoundError, "KLADDER='/nonexistent"):
                kladder.run("gemm", size=4)
        with mock.patch.dict(os.environ, {"KLADDER": "", "PATH": "/nonexistent"}):
            with self.assertRaisesRegex(kladder.KladderNotFoundError, "set KLADDER"):
                kladder.find_binary()

    def test_found_beside_the_installation(self):
        # The package installed in PREFIX/lib/pythonX.Y/site-packages, kladder in PREFIX/bin,
        # neither KLADDER nor PATH naming it.
        source = os.path.dirname(os.path.abspath(kladder.__file__))
        with tempfile.TemporaryDirectory() as prefix:
            site = os.path.join(prefix, "lib", "python3", "site-packages")
            os.makedirs(os.path.join(prefix, "bin"))
            shutil.copytree(source, os.path.join(site, "kladder"))
            binary = os.path.join(prefix, "bin", "kladder")
            os.symlink(os.path.realpath(os.environ["KLADDER"]), binary)
            env = dict(os.environ, PYTHONPATH=site, PATH="/nonexistent", KLADDER="")
            out = subprocess.run([sys.executable, "-c", "import kladder; print(kladder.find_binary())"],
                                 env=env, capture_output=True, text=True, check=True).stdout
            self.assertEqual(out.strip(), binary)

    def test_devices(self):
        found = kladder.devices()
        self.assertTrue(found)
        self.assertEqual(sum(d.default for d in found), 1)
        first = found[0]
        self.assertTrue(first.name and first.platform and ":" in first.id)
        self.assertIn("Max work-group size", first.facts)
        run = kladder.run("gemm", size=4, rungs="01", device=first.id, **kladder.QUICK)
        self.assertEqual(run.device["name"], first.name)

    def test_options(self):
        self.assertEqual(kladder._options(size=4, rung=["01", "10"], host_rungs=True,
                                          no_tuned=False, seed=None, min_time=0.5),
                         ["--size", "4", "--rung", "01,10", "--host-rungs", "--min-time", "0.5"])


class DataFrames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.runs = [kladder.run("gemm", size=s, rungs="01,10", **kladder.QUICK) for s in (8, 12)]

    @unittest.skipUnless(__import__("importlib").util.find_spec("pandas"), "pandas not installed")
    def test_dataframe(self):
        run = self.runs[0]
        df = run.to_dataframe()
        self.assertEqual(len(df), len(run.rows))
        self.assertEqual(list(df["rung"]), [r.rung for r in run])
        self.assertEqual(list(df["gflops"]), [r.gflops for r in run])
        self.assertEqual(list(df["status"]), ["verified", "verified"])
        self.assertEqual(set(df["M"]), {8})
        self.assertEqual(set(df["workload"]), {"gemm"})
        self.assertNotIn("raw", df.columns)
        both = kladder.dataframe(self.runs)
        self.assertEqual(len(both), 4)
        self.assertEqual(list(both["M"]), [8, 8, 12, 12])
        self.assertEqual(both.groupby("M")["rung"].count().to_dict(), {8: 2, 12: 2})

    def test_without_pandas_a_clear_error(self):
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaisesRegex(ImportError, "pip install pandas"):
                self.runs[0].to_dataframe()


if __name__ == "__main__":
    unittest.main()
