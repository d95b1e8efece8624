"""Script kladder, the kernel ladder: run a ladder, get its rows back as Python objects.

    import kladder
    run = kladder.run("gemm", size=512, rungs=["01", "10"], params={"TS": 16})
    for row in run.rows:
        print(row.rung, row.status, row.gflops, row.pct_ceiling)
    df = run.to_dataframe()          # with pandas installed

Each call runs the ``kladder`` command line with ``--format json`` and reads its report
(docs/kladder-run.schema.json).  The binary is ``$KLADDER`` when that is set, else
``kladder`` on ``PATH``, else the one installed beside this package (PREFIX/bin).

Errors: bad input (exit 2) and device, build or run-time errors (exit 3) raise
``KladderError`` with kladder's exit code and message.  A run kladder finished with rows
to show is returned, whatever its exit code: a rung that failed verification (exit 1) is
a row with status ``failed`` (``run.failed``, never a speed), a launch past
``kernel_timeout`` (exit 4) a row with status ``timeout``, and an interrupted run (exit
130) keeps the rows measured before the stop; for the last two ``run.interrupted`` is
True and ``run.stopped_by`` says why.  ``check=True`` (or ``run.check()``) raises
``KladderError``, with the run attached, for any of them instead.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .results import ROOFS, Device, Fleet, KladderError, Member, Peak, Row, Run, dataframe, load

__version__ = "0.1.0"
__all__ = ["run", "peak", "devices", "load", "dataframe", "find_binary", "QUICK", "ROOFS",
           "Run", "Row", "Peak", "Device", "Fleet", "Member", "KladderError",
           "KladderNotFoundError"]

#: The quickest protocol (one timed launch, no warm-up): ``kladder.run(..., **kladder.QUICK)``.
QUICK: Dict[str, Any] = {"warmup": 0, "repeats": 1, "min_time": 0}

#: Seconds kladder gets to write its rows after an interrupt before it is killed.
STOP_GRACE_S = 60.0

PathLike = Union[str, "os.PathLike[str]"]


class KladderNotFoundError(FileNotFoundError):
    """No kladder binary: ``$KLADDER`` names none, there is no ``kladder`` on PATH, and none
    beside this package's installation."""


def _beside_installation() -> List[str]:
    """Where an installation puts kladder beside this package: PREFIX/bin for a package in
    PREFIX/lib/pythonX.Y/site-packages (``cmake --install`` and ``pip install --prefix`` to
    one prefix), and the environment's own bin (a virtual environment)."""
    here = os.path.dirname(os.path.abspath(__file__))
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    return [os.path.join(prefix, "bin", "kladder"), os.path.join(sys.prefix, "bin", "kladder")]


def find_binary(binary: Optional[PathLike] = None) -> str:
    """The kladder binary's path: ``binary``, else ``$KLADDER``, else ``kladder`` on PATH,
    else the one installed beside this package."""
    given = os.fspath(binary) if binary is not None else os.environ.get("KLADDER")
    if given:
        found = shutil.which(given)
        if found is None:
            source = "binary" if binary is not None else "KLADDER"
            raise KladderNotFoundError(f"{source}={given!r} is not an executable file")
        return os.path.abspath(found) if os.sep in found else found
    found = shutil.which("kladder")
    if found is not None:
        return found
    beside = _beside_installation()
    for path in beside:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise KladderNotFoundError(
        "no kladder binary: set KLADDER to its path (e.g. KLADDER=build/kladder after "
        "cmake --build build) or put kladder on PATH (looked on PATH and in "
        + " and ".join(sorted(set(os.path.dirname(p) for p in beside))) + ")")


def run(workload: str, size: Optional[int] = None, *,
        rungs: Union[str, Sequence[str], None] = None,
        params: Optional[Mapping[str, Any]] = None,
        device: Optional[str] = None, backend: Optional[str] = None,
        type: Optional[str] = None, seed: Optional[int] = None,
        warmup: Optional[int] = None, repeats: Optional[int] = None,
        min_time: Union[float, str, None] = None,
        kernel_timeout: Union[float, str, None] = None,
        kernels: Sequence[PathLike] = (), compare: Union[str, Sequence[str], None] = None,
        extra_args: Sequence[str] = (), check: bool = False, timeout: Optional[float] = None,
        binary: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
        cwd: Optional[PathLike] = None, **options: Any) -> Union[Run, Fleet]:
    """Run one ladder and return its report as a ``Run``; on several devices at once
    (``device="all"``, ``"cuda:all"``, a list ``"0,2"``) as a ``Fleet`` of runs.

    ``workload`` is ``gemm``, ``copy``, ``rowdot``, ``gemv`` or ``blur``.  Arguments that
    are None are left to kladder's defaults (``README.md`` lists them); the rest become
    its options: ``size`` → ``--size``, ``rungs`` (names or unique prefixes) → ``--rung``,
    ``params`` → one ``--param NAME=VALUE`` each, ``type`` → ``--type`` (float, double,
    int), ``min_time`` and ``kernel_timeout`` in seconds (or kladder's ``"200ms"``),
    ``kernels`` → one ``--kernel FILE[:ENTRY]`` each (your kernels as rungs), ``compare``
    (``["clblast", "openblas"]``) → ``--compare``.  Any other keyword is an option by its
    name, underscores as dashes, True a flag, False and None left out:
    ``m=4095, n=4097, k=33``, ``rows=16384, d=1000``, ``host_rungs=True``,
    ``sigma=2, pixel="uchar4"``.  ``extra_args`` are passed as they are.

    ``timeout`` (seconds of wall time for the whole run, None: none) interrupts kladder
    as Ctrl-C does when it runs out: the run comes back with the rows measured so far,
    ``interrupted`` True and ``stopped_by`` ``"SIGINT"``.  A KeyboardInterrupt while
    waiting stops kladder the same way and is raised again (the rows are lost).
    ``binary`` overrides ``$KLADDER``; ``env`` is added to the environment (e.g.
    ``{"KLADDER_DEVICE": "gpu"}``); ``cwd`` is where kladder runs (relative paths are
    relative to it).  Raises ``KladderError`` for exit 2 and 3 (and 1, 4, 130 with
    ``check=True``), ``KladderNotFoundError`` where there is no binary.
    """
    args = _options(size=size, rung=rungs, device=device, backend=backend, type=type,
                    seed=seed, warmup=warmup, repeats=repeats, min_time=min_time,
                    kernel_timeout=kernel_timeout, compare=compare, **options)
    for name, value in (params or {}).items():
        args += ["--param", f"{name}={_value(value)}"]
    for kernel in kernels:
        args += ["--kernel", os.fspath(kernel)]
    data, code, stderr, command = _kladder([workload, *args, *extra_args], timeout=timeout,
                                           binary=binary, env=env, cwd=cwd)
    if "fleet_version" in data:
        fleet = Fleet.from_json(data, code, stderr, command)
        if check and code != 0:
            raise KladderError(code, "a member of the fleet did not finish cleanly", stderr,
                               command, None)
        return fleet
    result = Run.from_json(data, code, stderr, command)
    return result.check() if check else result


def peak(*, refresh: bool = False, quick: bool = False, device: Optional[str] = None,
         backend: Optional[str] = None, warmup: Optional[int] = None,
         repeats: Optional[int] = None, min_time: Union[float, str, None] = None,
         extra_args: Sequence[str] = (), timeout: Optional[float] = None,
         binary: Optional[PathLike] = None, env: Optional[Mapping[str, str]] = None,
         cwd: Optional[PathLike] = None, **options: Any) -> Peak:
    """The device's ceilings (``kladder peak``) as a ``Peak``.

    From kladder's cache where it holds them for this device, driver and backend (fast;
    ``Peak.cached``), else measured (seconds to minutes) and cached for every later run's
    ``pct_ceiling``.  ``refresh=True`` measures again; ``quick=True`` measures a small
    search space and caches nothing.  Other keywords are options as for ``run``, e.g.
    ``bytes=1 << 26`` (buffer size), ``vec=[4, 8]`` (vector widths).
    """
    args = _options(refresh=refresh, quick=quick, device=device, backend=backend,
                    warmup=warmup, repeats=repeats, min_time=min_time, **options)
    data, code, stderr, command = _kladder(["peak", *args, *extra_args], timeout=timeout,
                                           binary=binary, env=env, cwd=cwd)
    return Peak.from_json(data, code, stderr, command)


def devices(*, binary: Optional[PathLike] = None,
            env: Optional[Mapping[str, str]] = None) -> List[Device]:
    """Every device ``kladder devices`` lists (OpenCL platforms, and CUDA where it runs),
    read from its JSON (``kladder devices --format json``)."""
    command = [find_binary(binary), "devices", "--format", "json"]
    code, out, err = _execute(command, None, env, None)
    if code != 0:
        raise KladderError(code, _message(err, code), err, command)
    try:
        listing = json.loads(out)
    except ValueError as e:
        raise KladderError(None, f"kladder devices wrote no JSON ({e})", err, command) from None
    return [Device(d["id"], d["name"], d["platform"], d["platform_version"], bool(d["default"]),
                   dict(d["facts"])) for d in listing["devices"]]


# ---- running kladder --------------------------------------------------------------------

def _value(value: Any) -> str:
    """An option's value as kladder reads it: lists comma-separated."""
    if isinstance(value, (list, tuple)):
        return ",".join(_value(v) for v in value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _options(**options: Any) -> List[str]:
    """``--name value`` for each option, ``--name`` for True; None and False left out."""
    args: List[str] = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        args.append("--" + name.replace("_", "-"))
        if value is not True:
            args.append(_value(value))
    return args


def _message(stderr: str, code: Optional[int]) -> str:
    """What kladder said went wrong: its stderr from its first ``kladder:`` line that is
    not a warning (the compiler's log after it), without the prefix."""
    lines = stderr.strip().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("kladder: ") and not line.startswith("kladder: warning"):
            return "\n".join(l[len("kladder: "):] if l.startswith("kladder: ") else l
                             for l in lines[i:])
    if code is not None and code < 0:
        return f"killed by signal {-code}" + (f": {stderr.strip()}" if stderr.strip() else "")
    return stderr.strip() or "no message"


def _execute(command: List[str], timeout: Optional[float], env: Optional[Mapping[str, str]],
             cwd: Optional[PathLike]) -> Tuple[int, str, str]:
    """Run kladder; on ``timeout`` or a KeyboardInterrupt, interrupt it as Ctrl-C does
    and let it write its rows (killed after STOP_GRACE_S)."""
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                            env={**os.environ, **env} if env else None, cwd=cwd)

    def stop() -> Tuple[str, str]:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            return proc.communicate(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.communicate()

    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = stop()
    except BaseException:  # KeyboardInterrupt: stop kladder, then raise it again
        try:
            stop()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        raise
    return proc.returncode, out, err


def _kladder(args: List[str], timeout: Optional[float], binary: Optional[PathLike],
             env: Optional[Mapping[str, str]],
             cwd: Optional[PathLike]) -> Tuple[Dict[str, Any], int, str, List[str]]:
    """Run ``kladder ARGS --format json``: its JSON report, exit code, stderr and command.
    Raises KladderError unless the exit code is 0, 1, 4 or 130 with a report."""
    command = [find_binary(binary), *args, "--format", "json"]
    code, out, err = _execute(command, timeout, env, cwd)
    data = None
    if out.strip():
        try:
            data = json.loads(out)
        except ValueError as e:
            if code == 0:
                raise KladderError(None, f"kladder's output is not JSON ({e}): {out[:200]!r}",
                                   err, command) from None
    if data is not None and code in (0, 1, 4, 130):
        return data, code, err, command
    if code == 0:
        raise KladderError(None, "kladder wrote no report", err, command)
    partial = None
    if data is not None:
        try:
            partial = Run.from_json(data, code, err, command)
        except ValueError:
            pass
    raise KladderError(code, _message(err, code), err, command, partial)
