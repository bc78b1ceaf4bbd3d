"""The Python dependencies are declared for pip twice, once per kind of install: pyproject.toml's
[project] dependencies (a wheel's) and requirements.txt (`make run`'s .venv, with the
extension's builder). The two lists must be the same packages and bounds."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _requirements(name: str) -> list[str]:
    lines = (REPO / name).read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _normal(spec: str) -> str:
    return spec.replace(" ", "").replace("'", '"')


def test_make_run_installs_what_the_package_declares_plus_maturin() -> None:
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    run = _requirements("requirements.txt")
    assert [r for r in run if r.startswith("maturin")] == [tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"][0]]
    assert sorted(map(_normal, (r for r in run if not r.startswith("maturin")))) == sorted(map(_normal, declared))


def test_make_test_adds_to_make_run_s_requirements() -> None:
    test = _requirements("requirements-test.txt")
    assert test[0] == "-r requirements.txt"
    assert not set(test[1:]) & set(_requirements("requirements.txt"))
    optional = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dask"]
    assert set(optional) <= set(test)
