#!/usr/bin/python3
"""onnx.checker on each exported model, with full_check (shape inference over every
node): the export is a valid opset-17 model by ONNX's own reading.

    /usr/bin/python3 tests/onnx/check_model.py MODEL.onnx...
prints "checker: NAME ok (opset 17, ir_version 8, N nodes)" for each, exits 1 on the first failure.
"""
import pathlib
import sys

import onnx


def main():
    for path in sys.argv[1:]:
        model = onnx.load(path)
        onnx.checker.check_model(model, full_check=True)
        opsets = {o.domain: o.version for o in model.opset_import}
        assert opsets.get("", None) == 17, f"{path}: opset {opsets}"
        assert model.ir_version == 8, f"{path}: ir_version {model.ir_version}"
        print(f"checker: {pathlib.Path(path).stem} ok (opset 17, ir_version 8, {len(model.graph.node)} nodes)")


if __name__ == "__main__":
    main()
