# SPDX-License-Identifier: Apache-2.0
"""Importing spindle chooses OpenMP's passive wait policy unless the environment chose one."""

import os
import subprocess
import sys

import pytest

_PROBE = "import os, spindle; print(os.environ.get('OMP_WAIT_POLICY'))"
_CHOICES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "KMP_LIBRARY")


def _import_in_child(extra):
    env = {k: v for k, v in os.environ.items() if k not in _CHOICES}
    env.update(extra)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def test_import_sets_the_passive_wait_policy():
    assert _import_in_child({}) == "passive"


@pytest.mark.parametrize("var,value", [("OMP_WAIT_POLICY", "active"), ("GOMP_SPINCOUNT", "1000"),
                                       ("KMP_BLOCKTIME", "0")])
def test_a_policy_the_user_chose_is_kept(var, value):
    expected = value if var == "OMP_WAIT_POLICY" else "None"
    assert _import_in_child({var: value}) == expected
