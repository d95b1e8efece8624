"""pip installs the package offline, and the installed copy works.

usage: python3 check_install.py PYTHON_DIR

Copies PYTHON_DIR's sources to a temporary directory (the build writes beside them),
installs them with ``pip install --no-build-isolation --no-deps --no-index --target``,
then imports kladder from there alone: its version and files, its metadata (Python
>= 3.9, no dependencies, pandas an extra), and, where $KLADDER is set, one tiny run.
Exit 0 when it works, 1 when it does not, 77 (skipped) where pip or setuptools, or the
wheel package that setuptools before 70.1 builds wheels with, is absent.
"""

import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def missing_tools():
    """What pip needs to build the package here and is absent, as a sentence, or None."""
    absent = [m for m in ("pip", "setuptools") if importlib.util.find_spec(m) is None]
    if absent:
        return " and ".join(absent) + " not installed (apt install python3-pip python3-setuptools)"
    setuptools = importlib.metadata.version("setuptools")  # (importing it would patch distutils)
    version = tuple(int(p) for p in setuptools.split(".")[:2] if p.isdigit())
    if version < (70, 1) and importlib.util.find_spec("wheel") is None:
        return (f"setuptools {setuptools} builds wheels with the wheel package, which is not "
                "installed (apt install python3-wheel)")
    return None


def main():
    source = os.path.abspath(sys.argv[1])
    why = missing_tools()
    if why:
        print(f"skipped: {sys.executable}: {why}")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        src, site = os.path.join(tmp, "src"), os.path.join(tmp, "site")
        os.mkdir(src)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(os.path.join(source, name), src)
        shutil.copytree(os.path.join(source, "kladder"), os.path.join(src, "kladder"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONPATH="")
        pip = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
               "--no-index", "--target", site, src]
        done = subprocess.run(pip, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"FAIL: {' '.join(pip)} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
            return 1
        print(f"ok: pip installed the package into {site}")

        expected = {}
        with open(os.path.join(source, "kladder", "__init__.py"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("__version__"):
                    expected["version"] = line.split("=")[1].strip().strip("\"'")
        check = f"""
import importlib.metadata as md, json, os, sys
import kladder
meta = md.metadata("kladder")
out = {{"file": kladder.__file__, "version": kladder.__version__,
       "files": sorted(os.listdir(os.path.dirname(kladder.__file__))),
       "requires_python": meta["Requires-Python"], "extras": meta.get_all("Provides-Extra"),
       "requires": md.requires("kladder")}}
if os.environ.get("KLADDER"):
    run = kladder.run("gemm", size=4, rungs="01", **kladder.QUICK)
    out["run"] = [(r.rung, r.status) for r in run.rows]
print(json.dumps(out))
"""
        env["PYTHONPATH"] = site
        if env.get("KLADDER"):  # it runs in the temporary directory
            env["KLADDER"] = os.path.abspath(env["KLADDER"])
        done = subprocess.run([sys.executable, "-c", check], env=env, cwd=tmp,
                              capture_output=True, text=True)
        if done.returncode != 0:
            print(f"FAIL: importing the installed package:\n{done.stdout}\n{done.stderr}")
            return 1
        got = json.loads(done.stdout)
        fails = []
        if not got["file"].startswith(site + os.sep):
            fails.append(f"kladder imported from {got['file']}, not from {site}")
        if got["version"] != expected.get("version"):
            fails.append(f"version {got['version']}, expected {expected.get('version')}")
        for name in ("__init__.py", "results.py", "py.typed"):
            if name not in got["files"]:
                fails.append(f"{name} not installed (files: {got['files']})")
        if got["requires_python"] != ">=3.9":
            fails.append(f"Requires-Python {got['requires_python']!r}")
        if "pandas" not in (got["extras"] or []):
            fails.append(f"no pandas extra ({got['extras']})")
        if any("extra ==" not in r for r in got["requires"] or []):
            fails.append(f"dependencies beyond the extra: {got['requires']}")
        if "run" in got and got["run"] != [["01_naive", "verified"]]:
            fails.append(f"the installed copy's run: {got['run']}")
        for f in fails:
            print(f"FAIL: {f}")
        if fails:
            return 1
        print(f"ok: the installed copy imports alone (kladder {got['version']}, {got['file']})"
              + (", and runs kladder" if "run" in got else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
