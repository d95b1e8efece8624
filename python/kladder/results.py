"""kladder's results as Python objects: rows, runs, device ceilings and devices.

Everything here is built from kladder's JSON report (docs/kladder-run.schema.json), a
fleet's (docs/kladder-fleet.schema.json) or its device listing; nothing here runs kladder (the package's ``run``, ``peak`` and
``devices`` do).  Field names are the JSON's, so the schema documents them.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

#: The roofs every other command reports ``pct_ceiling`` against, in kladder's names, among
#: the figures ``Peak.ceilings`` holds (None where the device has none, e.g. no tensor cores):
#: device memory, the FMA units, the tensor cores in each precision, the on-chip levels.
ROOFS = ("copy_gbps", "read_gbps", "write_gbps", "f32_gflops", "f64_gflops", "i32_giops",
         "f16_gflops", "tf32_gflops", "f16_tc_gflops", "f16acc_tc_gflops", "bf16_gflops",
         "fp8_gflops", "fp8e5m2_gflops", "i8_giops", "f64_tc_gflops", "shared_gbps", "l1_gbps",
         "l2_gbps")


class KladderError(Exception):
    """kladder exited with an error, or its output could not be read.

    ``exit_code`` is kladder's exit status (2 bad input, 3 a device, build or run-time
    error; 1, 4 and 130 only through ``check``: a rung failed verification, a launch ran
    past ``--kernel-timeout``, the run was interrupted), negative for a signal that ended
    it, None where kladder ran but its output was unreadable.  ``message`` is what kladder
    said on standard error (without its ``kladder:`` prefix), ``stderr`` all of it,
    ``command`` the command line, and ``run`` the rows kladder wrote before it stopped
    (a ``Run``) or None.
    """

    def __init__(self, exit_code: Optional[int], message: str, stderr: str = "",
                 command: Sequence[str] = (), run: Optional["Run"] = None) -> None:
        self.exit_code = exit_code
        self.message = message
        self.stderr = stderr
        self.command = list(command)
        self.run = run
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.exit_code is None:
            return self.message
        return f"kladder exited with code {self.exit_code}: {self.message}"


@dataclass
class Row:
    """One row of a run: a rung (or a peer library, or one size of a sweep).

    ``status`` is ``verified`` (checked, and the timing counts), ``measured`` (a timing
    with nothing to check), ``failed`` (no timing counts: ``note`` says why), ``skipped``
    (not run: ``note`` says why) or ``timeout`` (a launch ran past ``--kernel-timeout``).
    Times are seconds of the median timed launch; rates are per second of it; a number
    that does not exist for the row (a failed rung's time) is None.  ``raw`` is the
    row's JSON object, with the fields not copied here (``resources``, ``clocks``,
    ``power_w``, ...).
    """

    rung: str
    status: str
    config: str = ""
    median_s: Optional[float] = None
    min_s: Optional[float] = None
    max_s: Optional[float] = None
    repeats: int = 0
    gflops: Optional[float] = None
    gbps: Optional[float] = None
    pct_ceiling: Optional[float] = None
    precision: Optional[str] = None
    error: Optional[float] = None
    speedup_first: Optional[float] = None
    speedup_host: Optional[float] = None
    total_s: Optional[float] = None
    build_s: Optional[float] = None
    flops: Optional[float] = None
    bytes: Optional[float] = None
    x: Optional[float] = None
    mitems_per_s: Optional[float] = None
    items_unit: Optional[str] = None
    bound: Optional[str] = None
    on_host: bool = False
    peer: bool = False
    summary: str = field(default="", repr=False)
    note: str = ""
    build_options: str = field(default="", repr=False)
    samples: Optional[List[float]] = field(default=None, repr=False)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Row":
        """A row from one object of the JSON's ``results``."""
        names = {f.name for f in dataclasses.fields(cls)} - {"raw"}
        return cls(**{k: v for k, v in data.items() if k in names}, raw=dict(data))

    @property
    def verified(self) -> bool:
        """The result was checked against the reference and its timing counts."""
        return self.status == "verified"


@dataclass
class Run:
    """One run of a ladder (or of ``kladder peak``), as kladder reported it.

    ``rows`` are in ladder order (peers after the rungs).  ``exit_code`` is kladder's:
    0 every rung verified, 1 a rung failed verification (``failed`` lists them), 4 a
    launch ran past ``--kernel-timeout`` (``timed_out``), 130 interrupted; with 4 and
    130, ``interrupted`` is True and ``stopped_by`` says what stopped it (``"SIGINT"``,
    ``"SIGTERM"``, or the timeout) and the rows are those measured before.  ``raw`` is
    the whole JSON report.
    """

    workload: str
    device: Dict[str, Any]
    params: Dict[str, Any]
    protocol: Dict[str, Any]
    rows: List[Row]
    interrupted: bool = False
    stopped_by: Optional[str] = None
    exit_code: int = 0
    schema_version: int = 0
    flops_per_launch: Optional[float] = None
    bytes_per_launch: Optional[float] = None
    reference: str = ""
    ceilings: str = ""
    ceiling_values: Optional[Dict[str, Any]] = None
    provenance: Dict[str, Any] = field(default_factory=dict)
    images: Optional[Dict[str, Any]] = None
    stderr: str = field(default="", repr=False)
    command: List[str] = field(default_factory=list, repr=False)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int = 0, stderr: str = "",
                  command: Sequence[str] = ()) -> "Run":
        """A run from kladder's JSON report (already parsed)."""
        if not isinstance(data, dict) or "results" not in data or "workload" not in data:
            raise ValueError("not a kladder run report (no workload or results)")
        return cls(
            workload=data["workload"],
            device=data.get("device", {}),
            params=data.get("params", {}),
            protocol=data.get("protocol", {}),
            rows=[Row.from_json(r) for r in data["results"]],
            interrupted=bool(data.get("interrupted", False)),
            stopped_by=data.get("stopped_by"),
            exit_code=exit_code,
            schema_version=data.get("schema_version", 0),
            flops_per_launch=data.get("flops_per_launch"),
            bytes_per_launch=data.get("bytes_per_launch"),
            reference=data.get("reference", ""),
            ceilings=data.get("ceilings", ""),
            ceiling_values=data.get("ceiling_values"),
            provenance=data.get("provenance", {}),
            images=data.get("images"),
            stderr=stderr,
            command=list(command),
            raw=data,
        )

    def __repr__(self) -> str:
        statuses = ", ".join(f"{sum(r.status == s for r in self.rows)} {s}"
                             for s in dict.fromkeys(r.status for r in self.rows))
        sizes = " ".join(f"{k}={v}" for k, v in self.params.items())
        stop = f", stopped_by={self.stopped_by!r}" if self.interrupted else ""
        return (f"<Run {self.workload} {sizes} on {self.device.get('name', '?')!r}: "
                f"{len(self.rows)} rows ({statuses or 'none'}), exit_code={self.exit_code}{stop}>")

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def ok(self) -> bool:
        """kladder exited 0: every rung run was verified and the run was not stopped."""
        return self.exit_code == 0 and not self.interrupted

    @property
    def verified(self) -> List[Row]:
        """The rows whose results were verified (their timings count)."""
        return [r for r in self.rows if r.status == "verified"]

    @property
    def failed(self) -> List[Row]:
        """The rows that failed verification (or failed to run)."""
        return [r for r in self.rows if r.status == "failed"]

    @property
    def timed_out(self) -> List[Row]:
        """The row whose launch ran past ``--kernel-timeout`` (at most one)."""
        return [r for r in self.rows if r.status == "timeout"]

    def row(self, rung: str) -> Row:
        """The first row of ``rung``: its full name, else a unique prefix (``"10"``)."""
        for r in self.rows:
            if r.rung == rung:
                return r
        names = list(dict.fromkeys(r.rung for r in self.rows if r.rung.startswith(rung)))
        if len(names) == 1:
            return self.row(names[0])
        raise KeyError(f"no rung {rung!r} in this run" if not names else
                       f"{rung!r} is ambiguous: {', '.join(names)}")

    def check(self) -> "Run":
        """Raise ``KladderError`` (with this run attached) unless kladder exited 0."""
        if self.exit_code != 0:
            what = {1: "a rung failed verification: " + ", ".join(r.rung for r in self.failed),
                    4: f"stopped: {self.stopped_by}",
                    130: f"interrupted by {self.stopped_by}"}
            raise KladderError(self.exit_code, what.get(self.exit_code, "error"), self.stderr,
                               self.command, self)
        return self

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the JSON report, as ``--json FILE`` does (``kladder report`` reads it)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.raw, f, indent=2)
            f.write("\n")

    def to_dataframe(self) -> Any:
        """The rows as a pandas DataFrame (see ``dataframe``)."""
        return dataframe(self)


@dataclass
class Member:
    """One device of a fleet: where it ran, how it ended, and its run (None: it wrote none)."""

    device: str
    host: str
    rank: int
    exit_code: int
    log: str
    run: Optional[Run]


@dataclass
class Fleet:
    """One command on several devices at once (``device="all"``, a list such as ``"0,2"``,
    or ``kladder-mpi``'s ranks): docs/kladder-fleet.schema.json.

    ``members`` are the devices in order (``d0``, ``d1`` ...), each with its whole ``Run``;
    ``summary`` has one dict per rung as the file has it: ``values`` (a member's median
    rate, None where it has none), ``min``, ``median``, ``max``, ``stragglers`` (members
    slower than the median by more than 5 %) and ``failed`` (members whose row failed).
    """

    command: str
    members: List[Member]
    summary: List[Dict[str, Any]]
    exit_code: int = 0
    stderr: str = field(default="", repr=False)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int = 0, stderr: str = "",
                  command: Sequence[str] = ()) -> "Fleet":
        """A fleet from kladder's fleet file (already parsed)."""
        if not isinstance(data, dict) or data.get("fleet_version") != 1:
            raise ValueError("not a kladder fleet file of version 1")
        members = [Member(m["device"], m["host"], m["rank"], m["exit_code"], m.get("log", ""),
                          Run.from_json(m["run"], m["exit_code"]) if m.get("run") else None)
                   for m in data["members"]]
        return cls(data["command"], members, data["summary"], exit_code, stderr, data)

    @property
    def runs(self) -> List[Run]:
        """The members' runs, for those that wrote one."""
        return [m.run for m in self.members if m.run is not None]

    @property
    def stragglers(self) -> Dict[str, List[str]]:
        """Rung -> the devices slower than its median by more than 5 %."""
        return {r["rung"]: [self.members[i].device for i in r["stragglers"]]
                for r in self.summary if r["stragglers"]}

    def to_dataframe(self) -> Any:
        """Every member's rows as one DataFrame (``dataframe``), with a ``member`` column."""
        pandas = _pandas()
        frames = []
        for i, m in enumerate(self.members):
            if m.run is not None:
                frame = dataframe(m.run)
                frame.insert(0, "member", f"d{i} {m.device}")
                frames.append(frame)
        return pandas.concat(frames, ignore_index=True) if frames else dataframe([])


@dataclass
class Peak:
    """The device's ceilings from ``kladder peak``.

    ``cached`` is True where kladder read them from its cache (nothing was measured;
    ``run`` is None and ``ceilings`` holds every figure kladder caches: the roofs, launch
    latencies in microseconds, transfer rates in GB/s).  Otherwise ``run`` is the
    measurement, a row per configuration tried, and ``ceilings`` every figure it measured
    (its JSON's ``ceiling_values``; for files written before runs carried them, the best
    verified row of each kind).  A figure the device lacks, or that was not measured, is
    None.
    """

    cached: bool
    ceilings: Dict[str, Optional[float]]
    device: str
    driver: str
    date: str
    run: Optional[Run] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, data: Dict[str, Any], exit_code: int = 0, stderr: str = "",
                  command: Sequence[str] = ()) -> "Peak":
        """From what ``kladder peak --format json`` printed: the cache, or a run."""
        if data.get("cached"):
            ceilings = {k: v for k, v in data.items()
                        if isinstance(v, (int, float)) and not isinstance(v, bool)}
            for k in ROOFS:  # kladder writes 0 for a roof the device lacks
                ceilings[k] = ceilings.get(k) or None
            return cls(True, ceilings, data.get("device", ""), data.get("driver", ""),
                       data.get("date", ""), None, data)
        run = Run.from_json(data, exit_code, stderr, command)
        if isinstance(data.get("ceiling_values"), dict):
            ceilings = {k: (v or None) for k, v in data["ceiling_values"].items()
                        if k not in ("date", "source") and not isinstance(v, bool)}
            return cls(False, ceilings, run.device.get("name", ""), run.device.get("driver", ""),
                       run.provenance.get("date", ""), run, data)

        def best(prefix: str, unit: str) -> Optional[float]:
            rates = [getattr(r, unit) for r in run.rows
                     if r.rung.startswith(prefix) and r.verified and getattr(r, unit)]
            return max(rates) if rates else None

        ceilings = {"copy_gbps": best("copy_v", "gbps"), "read_gbps": best("read_v", "gbps"),
                    "write_gbps": best("write_v", "gbps"),
                    "f32_gflops": best("fma_f32", "gflops"),
                    "f64_gflops": best("fma_f64", "gflops"),
                    "i32_giops": best("fma_i32", "gflops"),
                    "tf32_gflops": best("mma_tf32", "gflops"),
                    "f16_gflops": best("fma_f16x2", "gflops")}
        return cls(False, ceilings, run.device.get("name", ""), run.device.get("driver", ""),
                   run.provenance.get("date", ""), run, data)


@dataclass
class Device:
    """One device of ``kladder devices``: ``id`` is what ``device=`` takes (``"0:0"``,
    ``"cuda:0"``); ``facts`` are the listing's lines (``"Compute units": "2"``, ...) as
    text; ``default`` marks the device kladder uses when none is named."""

    id: str
    name: str
    platform: str
    platform_version: str = ""
    default: bool = False
    facts: Dict[str, str] = field(default_factory=dict)


def load(path: Union[str, "os.PathLike[str]"]) -> Union[Run, Fleet]:
    """A run saved by ``kladder ... --json FILE`` (or ``--format json``, or ``Run.save``);
    a ``Fleet`` where the file is a fleet's (several devices)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return Fleet.from_json(data) if "fleet_version" in data else Run.from_json(data)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError(
            "kladder's DataFrames need pandas, which is not installed: pip install pandas "
            "(or pip install 'kladder[pandas]'; on Debian and Ubuntu, apt install "
            "python3-pandas). Without it, Run.rows holds the same data.") from e
    return pandas


def dataframe(runs: Union[Run, Iterable[Run]]) -> Any:
    """A pandas DataFrame of the rows of one run, or of several (a sweep) one after another.

    One line per row, with the ``Row`` fields as columns (``raw`` left out), then the run's
    ``workload``, ``device`` (its name), ``backend``, ``exit_code`` and its ``params``
    (``M``, ``N``, ``K``, ``type``, ``seed``, ...), so that rows of runs of several sizes
    stay apart; a param named like a row field gets the prefix ``params_``.  Raises
    ImportError, saying how to install it, where pandas is absent.
    """
    pandas = _pandas()
    row_fields = [f.name for f in dataclasses.fields(Row) if f.name != "raw"]
    records = []
    for run in [runs] if isinstance(runs, Run) else runs:
        context: Dict[str, Any] = {"workload": run.workload,
                                   "device": run.device.get("name"),
                                   "backend": run.provenance.get("backend"),
                                   "exit_code": run.exit_code}
        for k, v in run.params.items():
            context[f"params_{k}" if k in row_fields or k in context else k] = v
        for r in run.rows:
            records.append({**{name: getattr(r, name) for name in row_fields}, **context})
    frame = pandas.DataFrame.from_records(records)
    if not records:
        frame = pandas.DataFrame(columns=row_fields)
    return frame
