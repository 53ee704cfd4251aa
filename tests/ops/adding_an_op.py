#!/usr/bin/env python3
"""docs/core.md's "Adding an op" names every file a new elementwise op touches. This
checks that list against the tree: for each op of NABLA_UNARY_OPS,
NABLA_PARAMETRIC_UNARY_OPS, NABLA_BINARY_OPS and NABLA_COMPARISON_OPS (tensor/op_list.hpp), every non-test file that registers it (a list entry, its
scalar function, a kernel, a row, a table entry, its name in a list or table
of names, a switch case) in the core's layers must be one of the files the document names. A hand-kept list of op names
anywhere else fails here, naming the file and the line.

Usage: adding_an_op.py REPO_ROOT
"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()


def documented_files():
    """The backticked paths of the table under "## Adding an op", split into the files
    every unary op touches and those an epilogue activation touches as well."""
    text = (ROOT / "docs/core.md").read_text()
    section = text.split("## Adding an op", 1)[1].split("\n## ", 1)[0]
    every, activation = set(), set()
    target = every
    for line in section.splitlines():
        if "epilogue activation" in line.lower() and not line.startswith("|"):
            target = activation
        if line.startswith("| `"):
            target.add(line.split("`")[1])
    return every, activation


def listed(macro):
    """The ops of one list of tensor/op_list.hpp."""
    text = (ROOT / "tensor/op_list.hpp").read_text()
    body = text.split(f"#define {macro}(X)", 1)[1].split("\n#define", 1)[0].split("\n//", 1)[0]
    return re.findall(r"X\((\w+)\)", body)


def elementwise_ops():
    return (listed("NABLA_UNARY_OPS") + listed("NABLA_PARAMETRIC_UNARY_OPS") + listed("NABLA_BINARY_OPS")
            + listed("NABLA_COMPARISON_OPS"))


def name_list_patterns(op):
    """Ways a file can keep `op` in a list or table of names."""
    o = re.escape(op)
    return [
        rf'"{o}"\s*,\s*"|"\s*,\s*"{o}"',  # the name in a list of names
        rf'"{o}"\s*,\s*(\{{\s*{o}\b|[\w:]*::{o}\b)',  # a name table's entry: "gelu" -> gelu
    ]


def registration_patterns(op):
    """Ways a file can register `op` (not merely call it)."""
    o = re.escape(op)
    return name_list_patterns(op) + [
        rf"\b[A-Z][A-Z0-9_]*\({o}\)",  # an entry of a macro list, a macro made per op
        rf"\{{\s*OpId::{o}\b",  # a {OpId, ...} table entry
        rf"\bcase (OpId|Activation|ElementwiseOp)::{o}\b",  # a hand-kept switch
        rf"\b(row|unary|binary)\(t, OpId::{o}\b|\bbinary<OpId::{o}>",  # its row
        rf"\bbackward_{o}\b",  # its backward rule
        rf"\bNABLA_[A-Z_]+ {o}\(",  # its scalar function
        rf"\bvoid {o}\(const TensorList",  # a kernel written out by hand
        rf"\bTensor {o}\(const Tensor& x\)",  # its API written out by hand
        rf"\bActivation::{o}\b",  # a hand-kept activation list
    ]


# A pass may have rules for particular ops (simplify's x * 1), which a new op does not
# need: in passes/ only a list of op names counts (a family kept by hand there, such as
# the comparisons, belongs in tensor/op_list.hpp).
# The layers that hold ops: the language (interp/, stdlib/) reaches every op through the
# table and only names ops for its own ends (Python's math.log, nn's gain table).
CORE = ("tensor/", "autograd/", "graph/", "passes/", "viz/")


def source_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for path in out.split():
        # (a tracked file deleted from the working tree, mid-change, is not there to read)
        if path.startswith(CORE) and path.endswith((".cpp", ".hpp", ".cu", ".cuh", ".h")) and (ROOT / path).exists():
            yield path


def main():
    every, activation = documented_files()
    if not every:
        print("docs/core.md: no file table under '## Adding an op'")
        return 1
    texts = {p: (ROOT / p).read_text(errors="replace").splitlines() for p in source_files()}
    activations = set(listed("NABLA_EPILOGUE_ACTIVATIONS"))
    failures = 0
    touched_by = {}
    for op in elementwise_ops():
        allowed = every | (activation if op in activations else set())
        everywhere = [re.compile(p) for p in registration_patterns(op)]
        in_passes = [re.compile(p) for p in name_list_patterns(op)]
        for path, lines in texts.items():
            patterns = in_passes if path.startswith("passes/") else everywhere
            for number, line in enumerate(lines, 1):
                line = line.split("//", 1)[0]  # comments name ops freely
                if any(p.search(line) for p in patterns):
                    touched_by.setdefault(op, set()).add(path)
                    if path not in allowed:
                        print(f"{path}:{number}: registers elementwise op '{op}', but docs/core.md's "
                              f"'Adding an op' does not list this file:\n    {lines[number - 1].strip()}")
                        failures += 1
                    break
    plain = [op for op in elementwise_ops() if op not in activations]
    widest = max((len(touched_by.get(op, ())) for op in plain), default=0)
    print(f"elementwise ops: {len(elementwise_ops())}; documented files: {len(every)} "
          f"(+{len(activation)} for epilogue activations); most files any other op touches: {widest}")
    non_test = [p for p in every if not p.startswith(("scripts/reference/", "tests/"))]
    if len(non_test) > 4:
        print(f"docs/core.md lists {len(non_test)} non-test files for an elementwise op; the target is at most 4")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
