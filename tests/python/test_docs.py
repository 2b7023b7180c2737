# SPDX-License-Identifier: Apache-2.0
"""Every public name is documented, and help(spindle.pagerank) states the README's PageRank
conventions table."""

import inspect
import pydoc
import re

import pytest

import spindle
import spindle.networkx_backend as backend

from conftest import REPO


@pytest.mark.parametrize("name", spindle.__all__)
def test_every_public_name_has_a_docstring(name):
    obj = getattr(spindle, name)
    assert obj.__doc__ and obj.__doc__.strip(), name
    if inspect.isclass(obj):
        for attr, member in vars(obj).items():
            if attr.startswith("_"):
                continue
            if callable(member) or isinstance(member, property):
                doc = getattr(member, "__doc__", None) or getattr(getattr(obj, attr), "__doc__",
                                                                  None)
                assert doc and doc.strip(), f"{name}.{attr}"


def test_the_networkx_backend_is_documented():
    assert backend.__doc__
    for name in backend._FUNCTIONS:
        assert getattr(backend.BackendInterface, name).__doc__, name
    for name in ("convert_from_nx", "convert_to_nx", "can_run", "should_run", "on_start_tests"):
        assert getattr(backend.BackendInterface, name).__doc__, name


def test_help_pagerank_states_the_readme_conventions_table():
    text = pydoc.render_doc(spindle.pagerank, renderer=pydoc.plaintext)
    readme = (REPO / "README.md").read_text()
    rows = [line for line in readme.splitlines()
            if re.match(r"\| `(default|networkx|gap|boost)` \|", line)]
    assert len(rows) == 4
    for row in rows:
        preset = re.match(r"\| `(\w+)`", row).group(1)
        line = next(x for x in text.splitlines() if x.strip().startswith(preset + " "))
        cells = [c.strip() for c in row.strip("|").split("|")]
        # the same teleport, dangling rule, stop test and sum, in ASCII
        ascii_cells = [c.replace("−", "-").replace("α", "alpha").replace("‖", "||")
                        .replace("₁", "_1").replace("·", "*").replace("≤", "<=") for c in cells]
        assert ascii_cells[1].split(",")[0] in line  # teleport
        assert ("dropped" in line) == ("dropped" in ascii_cells[2])
        assert ascii_cells[4] in line  # ranks sum to
        stop = "after exactly max_iter" if preset == "boost" else ascii_cells[3].split(" (")[0]
        assert stop in line
    assert "x' = alpha * A^T (x ./ outdeg)" in text
