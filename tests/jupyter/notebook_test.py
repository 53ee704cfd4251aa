"""examples/mlp.ipynb executed as a user would, with `jupyter nbconvert --to notebook
--execute` (Debian's jupyter-nbconvert) on the nabla kernel: no cell fails, the
progress bars end as one finished display per epoch, the test accuracy is printed,
the training image shows as a PNG, the loss plot as SVG and PNG, and the model's
graph as SVG.
Run: notebook_test.py NABLA_BINARY SOURCE_DIR."""
import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import nabla_kernel

nabla_kernel.install_kernelspec_from_argv()
SOURCE_DIR = sys.argv.pop(1)


class MlpNotebook(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = tempfile.mkdtemp(prefix="nabla-notebook-")
        cls.addClassCleanup(shutil.rmtree, folder, True)
        out = os.path.join(folder, "mlp.ipynb")
        done = subprocess.run(["jupyter", "nbconvert", "--to", "notebook", "--execute",
                               "--ExecutePreprocessor.timeout=600",
                               os.path.join(SOURCE_DIR, "examples", "mlp.ipynb"), "--output", out],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise AssertionError("nbconvert failed:\n" + done.stderr)
        with open(out) as f:
            cls.outputs = [o for cell in json.load(f)["cells"] for o in cell.get("outputs", [])]

    def data_of(self, mime):
        return ["".join(o["data"][mime]) if isinstance(o["data"][mime], list) else o["data"][mime]
                for o in self.outputs if mime in o.get("data", {})]

    def test_no_cell_failed(self):
        self.assertEqual([o for o in self.outputs if o["output_type"] == "error"], [])

    def test_progress_bars_end_finished(self):
        bars = [t for t in self.data_of("text/plain") if re.match(r"epoch \d/2 ", t)]
        self.assertEqual(len(bars), 2)  # one display per epoch, updated in place
        for epoch, bar in enumerate(bars, 1):
            self.assertRegex(bar, r"^epoch %d/2  94/94 \[=+\] .* in \d+:\d\d loss \d\.\d{4}$" % epoch)

    def test_accuracy_printed(self):
        text = "".join("".join(o["text"]) for o in self.outputs if o["output_type"] == "stream")
        accuracy = float(re.search(r"test accuracy (\d\.\d{4})", text).group(1))
        self.assertGreater(accuracy, 0.7)  # 2 epochs on 6000 images: about 0.83

    def test_image_plot_and_graph_shown(self):
        pngs = [base64.b64decode(png) for png in self.data_of("image/png")]
        for png in pngs:
            self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        sizes = [(int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) for png in pngs]
        self.assertIn((28, 28), sizes)  # the training image
        self.assertIn((640, 480), sizes)  # the loss plot's PNG form
        svgs = self.data_of("image/svg+xml")
        self.assertEqual(len(svgs), 2)
        plot_svg, graph_svg = svgs
        plot_text = html.unescape(plot_svg)  # PLplot writes text as character references
        self.assertTrue("training loss" in plot_text and "train loss" in plot_text, "no title or legend in the plot")
        self.assertIn("<svg", graph_svg)
        self.assertIn("linear", graph_svg)

if __name__ == "__main__":
    unittest.main(verbosity=2)
