# SPDX-License-Identifier: Apache-2.0
"""Runs networkx's own test suites through the Spindle backend (a ctest entry).

    NETWORKX_TEST_BACKEND=spindle NETWORKX_FALLBACK_TO_NX=True \\
        python -m pytest --pyargs networkx.algorithms.link_analysis ...

with networkx's conftest in charge (it converts every graph to the backend, and calls the
backend's on_start_tests hook), wherever this is run from. It counts the calls that reached
Spindle's functions (and those of them handed back to networkx by NotImplementedError) and
fails when the suites fail or when none did (the backend was not in effect). Extra arguments
go to pytest.
"""

import collections
import os
import pathlib
import sys
import tempfile

SUITES = [
    # the suites
    "networkx.algorithms.link_analysis",
    "networkx.algorithms.centrality.tests.test_eigenvector_centrality",
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.traversal",
    # the other dispatched functions' (descendants, ancestors, connectivity)
    "networkx.algorithms.components",
    "networkx.algorithms.tests.test_dag",
    # issue 48's algorithms (components are in networkx.algorithms.components above)
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.tests.test_link_prediction",
    "networkx.algorithms.centrality.tests.test_katz_centrality",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
]


def main(argv):
    os.environ["NETWORKX_TEST_BACKEND"] = "spindle"
    os.environ["NETWORKX_FALLBACK_TO_NX"] = "True"
    import networkx
    import pytest

    import spindle.networkx_backend as backend

    calls = collections.Counter()
    handed_back = collections.Counter()
    for name in backend._FUNCTIONS:
        func = getattr(backend.BackendInterface, name)

        def counted(*args, _func=func, _name=name, **kwargs):
            calls[_name] += 1
            try:
                return _func(*args, **kwargs)
            except NotImplementedError:
                handed_back[_name] += 1  # networkx runs its own implementation instead
                raise

        setattr(backend.BackendInterface, name, staticmethod(counted))

    nx_dir = pathlib.Path(networkx.__file__).parent
    with tempfile.TemporaryDirectory() as tmp:
        ini = pathlib.Path(tmp) / "pytest.ini"
        ini.write_text("[pytest]\n")
        # networkx's conftest (networkx/conftest.py) must load: root and conftest cut at
        # networkx's own folder, and an empty ini so no project configuration applies.
        rc = pytest.main(["-c", str(ini), f"--rootdir={nx_dir}", f"--confcutdir={nx_dir}",
                          "-p", "no:cacheprovider", "-q", "-rfEX", *argv, "--pyargs", *SUITES])
    total = sum(calls.values())
    print(f"spindle backend: {total} calls reached Spindle: "
          + ", ".join(f"{k} {v}" for k, v in sorted(calls.items())))
    if handed_back:
        print("spindle backend: calls handed back to networkx (NotImplementedError): "
              + ", ".join(f"{k} {v}" for k, v in sorted(handed_back.items())))
    if rc == 0 and total == 0:
        print("spindle backend: no call reached Spindle: the backend was not in effect")
        return 1
    return int(rc)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
