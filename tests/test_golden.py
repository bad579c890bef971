"""Every output of a set of fits equals its recorded golden output.

Recorded before the issue-28 redesign (``tests/golden/cases.py``); a change
that fixes a defect regenerates the case's file and is listed in
``docs/changes.rst``. Numbers are compared to 1e-9 relative, text exactly.
"""

import json

import pytest

from tests.golden.cases import CASES, compare_tables, outputs, path_of


@pytest.mark.parametrize("name", list(CASES))
def test_outputs_equal_the_golden_files(name):
    golden = json.loads(path_of(name).read_text())
    new = outputs(name)
    problems = []
    for table, text in golden["tables"].items():
        if table not in new["tables"]:
            problems.append(f"{table}: missing")
            continue
        why = compare_tables(text, new["tables"][table])
        if why:
            problems.append(f"{table}: {why}")
    problems += [f"{t}: new table" for t in new["tables"] if t not in golden["tables"]]
    for key, text in golden["texts"].items():
        if new["texts"].get(key) != text:
            problems.append(f"{key}: text differs")
    assert not problems, f"{name}: " + "; ".join(problems)
