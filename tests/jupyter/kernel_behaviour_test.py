"""The nabla kernel through jupyter_client, for what jupyter_kernel_test does not
cover: interrupting a running cell (the session keeps its variables), restart (a
clean exit, then a fresh session), a message with a bad signature (dropped and
logged, never answered), images from render(), display() and _repr_svg_, the
progress bar's display updated in place, errors that leave the kernel running, and
connection files that cannot be used. Run: kernel_behaviour_test.py NABLA_BINARY."""
import base64
import json
import os
import subprocess
import tempfile
import time
import unittest

import nabla_kernel
from nabla_kernel import run_cell

NABLA, PREFIX = nabla_kernel.install_kernelspec_from_argv()

import zmq  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402
from jupyter_client.session import Session  # noqa: E402


class KernelSession(unittest.TestCase):
    """Each test gets its own kernel; its stderr (xeus's log) goes to a file."""

    def setUp(self):
        self.log = tempfile.NamedTemporaryFile(prefix="nabla-kernel-", suffix=".log", delete=False)
        self.km = KernelManager(kernel_name="nabla")
        self.km.start_kernel(stderr=self.log)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=nabla_kernel.TIMEOUT)

    def tearDown(self):
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=True)
        self.log.close()
        os.unlink(self.log.name)

    def kernel_log(self):
        with open(self.log.name) as f:
            return f.read()

    def ok(self, code):
        reply, outputs = run_cell(self.kc, code)
        self.assertEqual(reply["status"], "ok", "%r failed: %s" % (code, reply))
        return outputs

    def result_of(self, code):
        return [c for t, c in self.ok(code) if t == "execute_result"][0]["data"]


class Interrupt(KernelSession):
    def test_interrupt_stops_the_cell_and_keeps_the_session(self):
        self.ok("let kept = 41\nlet i = 0")
        msg_id = self.kc.execute("while true { i = i + 1 }")
        time.sleep(1.0)  # the loop is running
        self.km.interrupt_kernel()
        reply = nabla_kernel.reply_to(self.kc, msg_id)
        outputs = nabla_kernel.outputs_of(self.kc, msg_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual([t for t, c in outputs], ["error"])
        self.assertEqual(reply["content"]["ename"], "interrupted")
        self.assertIn("interrupted", reply["content"]["evalue"])
        self.assertEqual(self.result_of("kept + 1")["text/plain"], "42")
        self.assertEqual(self.result_of("i > 0")["text/plain"], "true")
        self.assertTrue(self.km.is_alive())

    def test_interrupt_stops_a_wait_inside_a_builtin(self):
        self.ok("import time")
        started = time.monotonic()
        msg_id = self.kc.execute("time.sleep(60)")
        time.sleep(1.0)
        self.km.interrupt_kernel()
        reply = nabla_kernel.reply_to(self.kc, msg_id)
        nabla_kernel.outputs_of(self.kc, msg_id)
        self.assertEqual(reply["content"]["ename"], "interrupted")
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(self.result_of("1 + 1")["text/plain"], "2")

    def test_interrupt_between_cells_is_harmless(self):
        self.ok("let kept = 1")
        self.km.interrupt_kernel()
        time.sleep(0.5)
        self.assertEqual(self.result_of("kept")["text/plain"], "1")


class Restart(KernelSession):
    def test_restart_exits_cleanly_and_starts_a_fresh_session(self):
        self.ok("let before_restart = 1")
        old = self.km.provisioner.process
        self.km.restart_kernel(now=False)
        self.assertEqual(old.wait(timeout=nabla_kernel.TIMEOUT), 0)  # a clean exit, not a kill
        self.kc.wait_for_ready(timeout=nabla_kernel.TIMEOUT)
        reply, _ = run_cell(self.kc, "before_restart")
        self.assertEqual(reply["status"], "error")
        self.assertIn("undefined name 'before_restart'", reply["evalue"])
        self.assertEqual(self.result_of("1 + 1")["text/plain"], "2")


class BadSignature(KernelSession):
    def test_a_message_with_a_bad_signature_is_dropped_and_logged(self):
        info = self.km.get_connection_info()
        context = zmq.Context()
        shell = context.socket(zmq.DEALER)
        shell.connect("%s://%s:%d" % (info["transport"], info["ip"], info["shell_port"]))
        forger = Session(key=b"not-the-kernel-key", signature_scheme=info["signature_scheme"])
        content = {"code": "let forged = 1", "silent": False, "store_history": True,
                   "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}
        forger.send(shell, "execute_request", content)
        self.assertEqual(shell.poll(2000), 0, "the kernel answered a message with a bad signature")
        shell.close(linger=0)
        context.term()
        # Not run: the name stays undefined; and the kernel still serves signed messages.
        reply, _ = run_cell(self.kc, "forged")
        self.assertEqual(reply["status"], "error")
        self.assertIn("undefined name 'forged'", reply["evalue"])
        self.assertTrue(self.km.is_alive())
        self.assertIn("Signatures don't match", self.kernel_log())


class RichDisplay(KernelSession):
    def displays(self, code):
        return [c for t, c in self.ok(code) if t in ("display_data", "update_display_data")]

    def test_render_without_a_path_shows_svg(self):
        (shown,) = self.displays("let gm = compile(fn(v) = relu(v) * 2, randn(4))\ngm.render()")
        self.assertIn("<svg", shown["data"]["image/svg+xml"])
        self.assertIn("relu", shown["data"]["image/svg+xml"])
        (shown,) = self.displays("render_autograd((randn(3, requires_grad=true) * 2).sum())")
        self.assertIn("<svg", shown["data"]["image/svg+xml"])

    def test_display_of_an_image_tensor_is_a_png(self):
        (gray, rgb) = self.displays("display(rand(5, 7), rand(3, 4, 6))")
        for shown, (w, h) in ((gray, (7, 5)), (rgb, (6, 4))):
            png = base64.b64decode(shown["data"]["image/png"])
            self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual((int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")), (w, h))
            self.assertIn("tensor(", shown["data"]["text/plain"])

    def test_repr_svg_of_a_model_is_the_cell_result(self):
        self.ok('model Dot(r) {\n  _repr_svg_() = "<svg xmlns=\'http://www.w3.org/2000/svg\'>'
                '<circle r=\'" + str(r) + "\'/></svg>"\n}')
        data = self.result_of("Dot(3)")
        self.assertEqual(data["image/svg+xml"], "<svg xmlns='http://www.w3.org/2000/svg'><circle r='3'/></svg>")
        self.assertIn("Dot", data["text/plain"])

    def test_a_plot_is_the_cell_result_and_its_nan_warning_is_stderr(self):
        outputs = self.ok('import plot\nplot.lines({"train": [1, 0.5, float(\"nan\"), 0.25]}, title="loss")')
        (data,) = [c["data"] for t, c in outputs if t == "execute_result"]
        self.assertIn("<svg", data["image/svg+xml"])
        png = base64.b64decode(data["image/png"])
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        self.assertIn("figure 'loss'", data["text/plain"])
        stderr = "".join(c["text"] for t, c in outputs if t == "stream" and c["name"] == "stderr")
        self.assertIn("1 of 4 points are NaN or inf", stderr)

    def test_progress_bar_updates_one_display(self):
        shown = self.displays('import data\nlet bar = data.Progress(4, desc="epoch 1")\n'
                              "for i in range(4) { bar.update(loss=0.25) }\nbar.close()")
        ids = {d["transient"]["display_id"] for d in shown}
        self.assertEqual(len(ids), 1)
        self.assertIn("epoch 1  4/4", shown[-1]["data"]["text/plain"])
        self.assertIn("loss 0.2500", shown[-1]["data"]["text/plain"])


class Errors(KernelSession):
    def test_errors_are_positioned_and_the_kernel_goes_on(self):
        self.ok("let x = 2")
        for code, expected in (("x +* 1", "syntax error"), ("x.nope", "error"), ("zeros(2) @ zeros(3)", "error")):
            reply, outputs = run_cell(self.kc, code)
            self.assertEqual(reply["status"], "error")
            self.assertEqual(reply["ename"], expected)
            self.assertRegex(reply["evalue"], r"^<cell:\d+>:1:\d+: error: ")
            self.assertEqual(reply["traceback"][1], "  " + code)  # the source line, then the caret
            self.assertIn("error", [t for t, c in outputs])
        self.assertEqual(self.result_of("x * 21")["text/plain"], "42")


class Editing(KernelSession):
    """Completion and inspection at a cursor inside the cell, as the REPL's Tab and :help."""

    def request(self, send, *args):
        msg_id = send(*args)
        reply = self.kc.get_shell_msg(timeout=nabla_kernel.TIMEOUT)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        return reply["content"]

    def test_completion_of_members_and_keyword_arguments(self):
        self.ok("import nn\nlet layer = nn.Linear(4, 2)")
        reply = self.request(self.kc.complete, "nn.Lin", 6)
        self.assertIn("Linear", reply["matches"])
        self.assertEqual((reply["cursor_start"], reply["cursor_end"]), (3, 6))
        code = "layer.wei + 1"  # the cursor after "wei": the whole word is replaced
        reply = self.request(self.kc.complete, code, 9)
        self.assertEqual(reply["matches"], ["weight"])
        self.assertEqual((reply["cursor_start"], reply["cursor_end"]), (6, 9))
        reply = self.request(self.kc.complete, "nn.Linear(4, 2, bi", 18)
        self.assertIn("bias=", reply["matches"])  # and the globals, as the REPL offers them

    def test_cursor_positions_count_code_points(self):
        code = 'let s = "é"\npri'
        reply = self.request(self.kc.complete, code, len(code))
        self.assertEqual(reply["matches"], ["print"])
        self.assertEqual((reply["cursor_start"], reply["cursor_end"]), (len(code) - 3, len(code)))

    def test_inspection_of_the_name_at_the_cursor(self):
        reply = self.request(self.kc.inspect, "import nn\nlet m = nn.Linear(4, 2)", 23)  # in "Linear"
        self.assertTrue(reply["found"])
        self.assertIn("Linear(in_features, out_features", reply["data"]["text/plain"])
        reply = self.request(self.kc.inspect, "conv2d(x, ", 10)  # inside a call: the callee
        self.assertTrue(reply["found"])
        self.assertIn("conv2d(input, weight", reply["data"]["text/plain"])
        self.assertFalse(self.request(self.kc.inspect, "no_such_name_here", 5)["found"])

    def test_is_complete_indents_open_blocks(self):
        reply = self.request(self.kc.is_complete, "fn f(x) {\n  if x {")
        self.assertEqual((reply["status"], reply["indent"]), ("incomplete", "        "))

    def test_warnings_go_to_stderr(self):
        outputs = self.ok("gradcheck(fn(x) = x * 2, randn(3, requires_grad=true))")
        stderr = "".join(c["text"] for t, c in outputs if t == "stream" and c["name"] == "stderr")
        self.assertIn("gradcheck: warning: input 0 is f32, not f64", stderr)

    def test_output_that_is_not_utf8_is_replaced_not_lost(self):
        outputs = self.ok('print("a\\xffb")')
        self.assertIn(("stream", {"name": "stdout", "text": "a\ufffdb\n"}), outputs)


class ConnectionFile(unittest.TestCase):
    def kernel_with(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(text)
        try:
            return subprocess.run([NABLA, "kernel", "-f", f.name], capture_output=True, text=True, timeout=30)
        finally:
            os.unlink(f.name)

    def test_unusable_connection_files_are_clear_errors(self):
        good = {"transport": "tcp", "ip": "127.0.0.1", "shell_port": 50001, "iopub_port": 50002,
                "stdin_port": 50003, "control_port": 50004, "hb_port": 50005, "key": "k",
                "signature_scheme": "hmac-sha256"}
        cases = [
            ("{not json", "not valid JSON"),
            ("[1, 2]", "expected a JSON object"),
            (json.dumps({k: v for k, v in good.items() if k != "shell_port"}), 'missing "shell_port"'),
            (json.dumps(dict(good, iopub_port="http")), '"iopub_port" must be a port number, got "http"'),
            (json.dumps(dict(good, hb_port=70000)), '"hb_port" must be a port number, got 70000'),
            (json.dumps(dict(good, signature_scheme="hmac-nope")), '"signature_scheme" must be one of'),
        ]
        for text, message in cases:
            with self.subTest(text=text):
                done = self.kernel_with(text)
                self.assertEqual(done.returncode, 2)
                self.assertIn("nabla kernel: connection file ", done.stderr)
                self.assertIn(message, done.stderr)
        done = subprocess.run([NABLA, "kernel", "-f", "/nonexistent/kernel.json"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("/nonexistent/kernel.json: No such file or directory", done.stderr)
        done = subprocess.run([NABLA, "kernel"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage: nabla kernel -f CONNECTION_FILE", done.stderr)


class Kernelspec(unittest.TestCase):
    def test_kernel_json(self):
        with open(os.path.join(PREFIX, "share", "jupyter", "kernels", "nabla", "kernel.json")) as f:
            spec = json.load(f)
        self.assertEqual(spec["argv"], [NABLA, "kernel", "-f", "{connection_file}"])
        self.assertEqual((spec["display_name"], spec["language"], spec["interrupt_mode"]), ("nabla", "nabla", "signal"))
        done = subprocess.run([NABLA, "jupyter", "install", "--prefix"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage: nabla jupyter install [--user | --prefix DIR]", done.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
