"""The nabla kernel against Debian's jupyter_kernel_test suite (python3-jupyter-kernel-test):
kernel_info, execute and its stdout and stderr streams, errors, execute results,
completion, inspection, is_complete, display data and history, each message checked
against the protocol's schema. Run: kernel_protocol_test.py NABLA_BINARY."""
import unittest

import nabla_kernel

nabla_kernel.install_kernelspec_from_argv()

import jupyter_kernel_test  # noqa: E402 (after JUPYTER_PATH is set)


class NablaKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "nabla"
    language_name = "nabla"
    file_extension = ".dsl"

    code_hello_world = 'print("hello, world")'
    # An op without a batching rule under vmap: the note that native code writes to stderr.
    code_stderr = "vmap(fn(a) = scaled_dot_product_attention(a, a, a))(randn(2, 3, 4))"
    code_generate_error = "let y = undefined_name + 1"

    completion_samples = [
        {"text": "pri", "matches": {"print"}},
        {"text": "expect_cl", "matches": {"expect_close"}},
        {"text": "whi", "matches": {"while"}},
    ]
    complete_code_samples = ["1 + 1", "let x = [1, 2]", "fn f(x) {\n  return x\n}", ""]
    # A string in one pair of quotes ends on its line, as Python's: left open, it is
    # invalid (an error now), not more input to wait for; a triple-quoted one waits.
    incomplete_code_samples = ["let x = [1,", "fn f(x) {", 'print("""open', "model M() {\n  w = 1"]
    invalid_code_samples = ["let = )", "1 +* 2)", 'print("open']

    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": '"a" + "b"', "result": "'ab'"},
        {"code": "zeros(2).shape", "result": "(2,)"},
    ]
    code_display_data = [
        {"code": "display(rand(8, 8))", "mime": "image/png"},
        {"code": "display(rand(3, 8, 8))", "mime": "image/png"},
        {"code": "let gm = compile(fn(v) = relu(v) * 2, randn(4))\ngm.render()", "mime": "image/svg+xml"},
        {"code": "render_autograd((randn(3, requires_grad=true) * 2).sum())", "mime": "image/svg+xml"},
    ]
    code_inspect_sample = "print"
    code_history_pattern = "1 + 2"
    supported_history_operations = ("tail", "range", "search")


if __name__ == "__main__":
    unittest.main(verbosity=2)
