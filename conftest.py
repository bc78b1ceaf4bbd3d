"""pytest-xdist groups for `make test` (pytest -n 2 --dist loadgroup --no-loadscope-reorder):
tests that share a resource never run at the same time, and a module's module-scoped fixtures
run once, not once per worker.

Every test gets an ``xdist_group`` mark here, by its file, without editing the test files:

* ``vm``: the runtime's tests (tests/runtime/test_runtime.py, whose ``vm_runs`` boots a 4-node
  qemu VM), vm/tests/test_vm.py and the tiered VM's tests (vm/tests/test_tiering.py), one after
  the other on one worker: one VM at a time on the two cores, and the native runtime tests never
  beside a VM of their own. (The tiered VM's module was a group of its own until 2026-11-28: it
  was handed out last, 49 s on one worker after the other had finished, beside whichever VM
  was running);
* ``testgrid``: the tests that read the report on the test grid, which the session fixture
  ``test_grid_report`` writes once for them (the report in headless Chromium,
  python/tests/test_report_browser.py; the report's goldens; its equality on a process pool);
* a test module with a module-, package- or class-scoped fixture (a report, the recorder's
  builds, a sweep's reference run, ...): the module's own group, so that fixture runs once;
* every other test: no group, so xdist hands the tests out one by one to whichever worker is free.

Without xdist (plain ``pytest``, ``-p no:xdist``, ``-n 0``) the marks do nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

# Files that share something beyond themselves (a VM, a browser): group name -> files.
SHARED = {
    "vm": ("tests/runtime/test_runtime.py", "vm/tests/test_vm.py", "vm/tests/test_tiering.py"),
    "testgrid": ("python/tests/test_report_browser.py",),
}
# Session fixtures whose tests must share a worker, so that the fixture runs once: name -> group.
SHARED_FIXTURES = {"test_grid_report": "testgrid"}
_GROUP_OF = {path: group for group, paths in SHARED.items() for path in paths}

# The longest work first, so that neither worker is left with one of them at the end while the
# other idles (under xdist, with --no-loadscope-reorder as `make test` passes it; without it
# xdist puts the groups with the most tests first). The first runs the quick report's grid, the
# only test that does; the VM group boots the VM; the others run the report on the test grid.
SLOW_FIRST = (
    "python/tests/test_fidelity.py",  # the quick report (what `make run` writes)
    "tests/runtime/test_runtime.py",  # with vm/tests/test_vm.py and test_tiering.py, group vm: the VMs boot
    "vm/tests/test_vm.py",
    "vm/tests/test_tiering.py",
    "python/tests/test_report.py::test_report_is_identical_in_process_and_on_a_process_pool",
    "python/tests/test_report_browser.py",
    "tests/test_golden.py::test_report_markdown_and_fidelity_match_golden",
    "python/tests/test_record.py",  # the recorder's builds, about a minute
)
_PER_MODULE_SCOPES = {"module", "package", "class"}


def pytest_configure(config: pytest.Config) -> None:
    # xdist registers the mark itself; registered here too so that a run without xdist (or an
    # older one) does not warn about an unknown mark (warnings are errors, pyproject.toml).
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist runs the tests of one group on one worker, in order")
    config.pluginmanager.register(_XdistGroupIds(), "numaplace-xdist-group-ids")


@pytest.fixture(scope="session")
def test_grid_report(tmp_path_factory: pytest.TempPathFactory):
    """The report on the test grid, every experiment, run in this process: (its directory, its
    sections, each with its figure). What `reproduce(grid="test", jobs=0)` writes (it is these
    two calls), written once for the tests that read it (group ``testgrid``): three of them
    wrote it each time, 35 s each on a loaded CI."""
    from numaplace.experiments import Grid, run_experiments, select
    from numaplace.report import write_report

    out = tmp_path_factory.mktemp("test-grid-report")
    selected = select(None)
    results = run_experiments([e.id for e in selected], grid=Grid.TEST, progress=False, jobs=0)
    return out, write_report(out, selected, results, Grid.TEST)


def _group(item: pytest.Item) -> str | None:
    try:
        rel = Path(item.path).resolve().relative_to(ROOT).as_posix()
    except ValueError:  # a test outside the checkout
        rel = str(item.path)
    if rel in _GROUP_OF:
        return _GROUP_OF[rel]
    info = getattr(item, "_fixtureinfo", None)
    for name, group in SHARED_FIXTURES.items():
        if info is not None and name in info.name2fixturedefs:
            return group
    for defs in (info.name2fixturedefs.values() if info is not None else ()):
        if any(d.scope in _PER_MODULE_SCOPES for d in defs):
            return f"module:{rel}"
    return None


# Before xdist's own hook, which reads the marks (it appends "@<group>" to each test's id).
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = _group(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
        mark = item.get_closest_marker("xdist_group")
        if mark is not None:
            _GROUP_OF_TEST[item.nodeid] = str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    if getattr(config.option, "loadgroup", False):  # xdist's workers, --dist loadgroup
        def rank(item: pytest.Item) -> int:
            for i, prefix in enumerate(SLOW_FIRST):
                if item.nodeid == prefix or item.nodeid.startswith(prefix + "::"):
                    return i
            return len(SLOW_FIRST)

        items.sort(key=rank)  # stable: the order within a file, and of the rest, is kept


# After xdist's own hook: xdist (3.8) tells the controller a test's group by appending "@<group>"
# to the test's id, written to a field that pytest 9.2 no longer reads (pytest-xdist issue 1386:
# the groups are then silently ignored and a group's tests spread over both workers). Where that
# happened, the id is set here the way pytest 9.2 keeps it; where xdist's own suffix took effect
# (an older pytest, a fixed xdist), nothing is done.
class _XdistGroupIds:
    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if not getattr(config.option, "loadgroup", False):
            return
        for item in items:
            group = _GROUP_OF_TEST.get(item.nodeid)
            if group is None or item.nodeid.endswith("@" + group):
                continue
            new = f"{item.nodeid}@{group}"
            structured = getattr(item, "_id", None)
            if structured is not None and hasattr(type(structured), "parse"):
                item._id = type(structured).parse(new)
            else:
                item._nodeid = new
            assert item.nodeid == new, (item.nodeid, new)


# The clock of each group: the time its tests took (set-up, call and tear-down, summed; a group
# runs on one worker, so this is that worker's time in it), printed after the slowest tests.
_GROUP_OF_TEST: dict[str, str] = {}
_GROUP_TIME: dict[str, list[float]] = {}
# Each worker's timeline (under xdist): per group, in the order the worker began it, the wall
# clock of its first start and last stop, and the time its tests took; and when the worker
# ended. Where a worker ends long before the other, the groups were unevenly spread.
_WORKER_GROUPS: dict[str, dict[str, list[float]]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    nodeid = report.nodeid
    # Under xdist the controller sees the workers' ids, "<id>@<group>" for a grouped test.
    group = _GROUP_OF_TEST.get(nodeid) or (nodeid.rsplit("@", 1)[1] if "@" in nodeid.rsplit("::", 1)[-1] else "(no group)")
    clock = _GROUP_TIME.setdefault(group, [0.0, 0])
    clock[0] += report.duration
    clock[1] += report.when == "call" or (report.when == "setup" and report.skipped)
    worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", None)
    if worker is not None:
        span = _WORKER_GROUPS.setdefault(worker, {}).setdefault(group, [report.start, report.stop, 0.0])
        span[0], span[1], span[2] = min(span[0], report.start), max(span[1], report.stop), span[2] + report.duration


def _timeline_lines() -> list[str]:
    """One line per worker: its groups in the order it began them, each with its first start and
    last stop (seconds from the session's first test) and the time its tests took, then when the
    worker finished."""
    if not _WORKER_GROUPS:
        return []
    t0 = min(span[0] for groups in _WORKER_GROUPS.values() for span in groups.values())
    lines = []
    for worker, groups in sorted(_WORKER_GROUPS.items()):
        order = sorted(groups.items(), key=lambda kv: kv[1][0])
        parts = [f"{g} {a - t0:.0f}-{b - t0:.0f} s ({d:.0f} s)" for g, (a, b, d) in order]
        end = max(b for _, b, _ in groups.values()) - t0
        lines.append(f"numaplace: pytest worker {worker}: ended at {end:.0f} s; " + "; ".join(parts))
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _GROUP_TIME or config.getoption("collectonly", False):
        return
    terminalreporter.write_sep("=", "time per test group (set-up, call and tear-down, summed; xdist runs a group on one worker)")
    for group, (seconds, tests) in sorted(_GROUP_TIME.items(), key=lambda kv: -kv[1][0]):
        terminalreporter.write_line(f"numaplace: pytest group {group}: {seconds:.0f} s, {tests} tests")
    for line in _timeline_lines():
        terminalreporter.write_line(line)
