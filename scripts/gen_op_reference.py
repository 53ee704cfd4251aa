#!/usr/bin/python3
"""Writes the expected values of the op-table sweep (tests/ops/reference/*.json).

Each module scripts/reference/<family>.py defines CASES, built with the helpers of
scripts/reference/lib.py; PyTorch (Debian's python3-torch, /usr/bin/python3)
computes the outputs. The JSON files are committed, so building and testing nabla
never needs PyTorch; rerun this after adding a case:

    /usr/bin/python3 scripts/gen_op_reference.py            # every family
    /usr/bin/python3 scripts/gen_op_reference.py conv       # one family
"""
import importlib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "reference"))
OUT = HERE.parent / "tests" / "ops" / "reference"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    import lib
    families = sorted(p.stem for p in (HERE / "reference").glob("*.py") if p.stem != "lib")
    if len(sys.argv) > 1:
        families = [f for f in families if f in sys.argv[1:]]
    for family in families:
        lib.reseed(family)
        module = importlib.import_module(family)
        cases = [c.to_json() for c in module.CASES]
        path = OUT / f"{family}.json"
        path.write_text(json.dumps(cases, indent=None, separators=(",", ":")) + "\n")
        print(f"{path.relative_to(HERE.parent)}: {len(cases)} cases")


if __name__ == "__main__":
    main()
