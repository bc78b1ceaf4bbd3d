"""The tour notebook (``examples/tour.ipynb``) runs from top to bottom in a Jupyter kernel of
this Python (``nbclient``), shows a result, a sweep's progress bar and a plot, and is kept in
the repository without outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ipykernel  # noqa: F401 - the kernel the notebook runs in (requirements-test.txt)
import nbclient
import nbformat
import pytest

import numaplace

TOUR = Path(__file__).resolve().parents[2] / "examples" / "tour.ipynb"
KERNEL = "numaplace-tour-test"


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A kernel spec of this very interpreter, importing this very numaplace: a ``python3``
    spec installed elsewhere (another venv, the system's) could run a different Python."""
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    package_root = str(Path(numaplace.__file__).resolve().parents[1])
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "numaplace test",
                "language": "python",
                "env": {"PYTHONPATH": package_root, "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    return KERNEL


def test_the_committed_tour_has_no_outputs() -> None:
    nb = nbformat.read(TOUR, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def test_the_tour_runs_and_shows_a_result_progress_and_a_plot(kernel: str, tmp_path: Path) -> None:
    nb = nbformat.read(TOUR, as_version=4)
    # Generous timeouts: a loaded two-core host starts a kernel and runs the cells slowly.
    client = nbclient.NotebookClient(nb, kernel_name=kernel, timeout=600, startup_timeout=300, resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    data = [o.get("data", {}) for o in outputs]
    # The kernel imported this numaplace.
    assert any(d.get("text/plain") == repr(numaplace.__version__) for d in data)
    # The result's own display, and a tidy frame as a table.
    assert any("numaplace-result" in d.get("text/html", "") for d in data)
    # The sweep's progress bar: a tqdm widget (the kernel is a notebook; stderr is no terminal).
    sweep_cell = next(c for c in nb.cells if "numaplace.sweep(" in c.source)
    bar = [o for o in sweep_cell.outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert bar and "sweep" in bar[0]["data"]["text/plain"], [o.get("data", o.get("text")) for o in sweep_cell.outputs]
    # The plot, and a policy that raised the local share from the first iteration to the last.
    assert any("image/png" in d for d in data)
    (table,) = [o["data"]["text/plain"] for o in nb.cells[-1].outputs if o.output_type == "execute_result"]
    rows = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in table.splitlines()[2:]}
    assert rows["none"][0] == rows["none"][1]  # no policy: the share never changes
    assert rows["sampled"][1] > rows["sampled"][0]  # the policy moved pages to their users
