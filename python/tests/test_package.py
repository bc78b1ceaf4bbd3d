"""Tests of the package's shape: every exception class it exports derives from NumaplaceError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import numaplace

def _exported_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class a numaplace module exports (its ``__all__``, else its public
    names), by the dotted name of the module exporting it."""
    found: dict[str, type[BaseException]] = {}
    modules = [numaplace] + [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(numaplace.__path__, "numaplace.")
        if not m.name.endswith("__main__")  # importing it runs the command line
    ]
    for module in modules:
        names = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
        for name in names:
            obj = getattr(module, name)
            # The extension's classes report their module as "_native".
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__.startswith(("numaplace", "_native")):
                found[f"{module.__name__}.{name}"] = obj
    return found


def test_every_exported_exception_derives_from_numaplace_error() -> None:
    exported = _exported_exceptions()
    names = {cls.__name__ for cls in exported.values()}
    # The walk reaches the subpackages (and so could fail): these are defined there.
    assert {"SweepError", "UnsupportedOptionError", "WorkerLostError", "UnknownExperimentError", "SpecError"} <= names
    assert {"RuntimeToolError", "ProgramNotFound", "UsageError"} <= names
    wrong = sorted(n for n, cls in exported.items() if not issubclass(cls, numaplace.NumaplaceError))
    assert wrong == []


def test_exceptions_that_joined_numaplace_error_keep_their_builtin_base() -> None:
    """Code that caught them by their old builtin base still catches them."""
    from numaplace.api import ResultError
    from numaplace.experiments import SelectionError, UnknownExperimentError
    from numaplace.sweep import WorkerLostError

    assert issubclass(UnknownExperimentError, ValueError)
    assert issubclass(WorkerLostError, RuntimeError)
    assert issubclass(ResultError, ValueError)
    assert issubclass(SelectionError, ValueError)


def test_a_selection_of_no_experiments_or_of_no_grid_is_a_numaplace_error(tmp_path) -> None:  # noqa: ANN001
    """Not a bare ValueError, and raised before anything runs or is written."""
    from numaplace.experiments import run_experiments
    from numaplace.report import reproduce

    with pytest.raises(numaplace.NumaplaceError, match="^no experiments selected$"):
        reproduce(out_dir=tmp_path / "report", experiments=[], progress=False)
    with pytest.raises(numaplace.NumaplaceError, match=r"^unknown grid 'tiny' \(known: test, quick, full\)$"):
        run_experiments(["seed003-table2"], grid="tiny", progress=False, jobs=0)
    assert not (tmp_path / "report").exists()


def test_a_question_a_result_cannot_answer_is_a_numaplace_error() -> None:
    """Not a bare ValueError: the jobs of a page run, the result of a failed sweep row."""
    r = numaplace.simulate(workload="stream:pages=64,iterations=1", threads=1)
    for ask in (r.per_job, r.timeline):
        with pytest.raises(numaplace.NumaplaceError, match=r"a page run has no jobs \(give job_stream= for a system run\)$"):
            ask()
    with pytest.raises(numaplace.NumaplaceError, match=r"^run 0 failed \(X: y\): it has no result$"):
        numaplace.Result.from_row({"status": "failed", "run": 0, "error_type": "X", "error": "y"})
