# The `log` module: SummaryWriter's checks and errors (read_back.py reads the files
# back and checks every record).
import log
import _log
import data
import time

let root = f"/tmp/nabla_log_test_{int(time.time() * 1000000)}"

test "a SummaryWriter makes its folder and an events file named as TensorBoard's" {
  let w = log.SummaryWriter(root + "/made/here", filename_suffix=".x")
  let path = _log.path(w._file)
  expect(path.startswith(root + "/made/here/events.out.tfevents."), path)
  expect(path.endswith(".x"), path)
  expect(w.get_logdir() == root + "/made/here")
  w.add_scalar("loss", 0.5, 1)
  w.close()
  expect(data.file_exists(path), path)
}

test "the default folder is runs/<date>_<host><comment>" {
  let d = _log.default_log_dir("_lr0.1")
  expect(d.startswith("runs/") and d.endswith("_lr0.1"), d)
}

test "a folder that cannot be written is an error at construction" {
  write_text(root + "_a_file", "x")
  expect_error(fn() = log.SummaryWriter(root + "_a_file"), "it is not a folder")
  expect_error(fn() = log.SummaryWriter(root + "_a_file/below"), "cannot make the log folder")
  expect_error(fn() = log.SummaryWriter("/proc"), "cannot write in the log folder /proc")
  expect_error(fn() = log.SummaryWriter(3), "log_dir must be a str, got int")
  expect_error(fn() = log.SummaryWriter(""), "log_dir is empty")
  expect_error(fn() = log.SummaryWriter(root + "/q", max_queue=0), "max_queue must be at least 1, got 0")
  expect_error(fn() = log.SummaryWriter(root + "/q", flush_secs=-1), "flush_secs must be >= 0, got -1")
}

test "scalars: non-finite values are written; wrong types are errors naming the argument" {
  let w = log.SummaryWriter(root + "/scalars")
  w.add_scalar("nan", float("nan"), 1)
  w.add_scalar("inf", float("inf"))
  w.add_scalar("tensor", tensor(2.5), global_step=3, walltime=5.0)
  expect_error(fn() = w.add_scalar(3, 1.0), "add_scalar(): tag must be a str, got int")
  expect_error(fn() = w.add_scalar("x", "1.0"), "add_scalar(): scalar_value must be a number or a one-element tensor, got str")
  expect_error(fn() = w.add_scalar("x", ones(2)), "got a tensor of shape [2]")
  expect_error(fn() = w.add_scalar("x", 1.0, global_step="a"), "global_step: expected an int, got str")
  expect_error(fn() = w.add_scalars("x", [1]), "tag_scalar_dict must be a dict, got list")
  expect_error(fn() = w.add_scalars("x", {1: 2.0}), "keys of tag_scalar_dict must be strs")
  w.close()
  expect_error(fn() = w.add_scalar("x", 1.0), "is closed")
}

test "histograms: empty values, bad bins and bad edges are errors" {
  let w = log.SummaryWriter(root + "/hist")
  w.add_histogram("ok", randn(10))
  w.add_histogram("list", [1, 2, 3], bins=2)
  expect_error(fn() = w.add_histogram("e", zeros(0)), "add_histogram(): values is empty")
  expect_error(fn() = w.add_histogram("e", []), "values is empty")
  expect_error(fn() = w.add_histogram(1, randn(3)), "tag must be a str, got int")
  expect_error(fn() = w.add_histogram("b", randn(3), bins="auto"), "bins must be \"tensorflow\", a number of bins or a list of edges")
  expect_error(fn() = w.add_histogram("b", randn(3), bins=0), "bins must be at least 1")
  expect_error(fn() = w.add_histogram("b", randn(3), bins=[2, 1]), "edges must increase")
  expect_error(fn() = w.add_histogram("b", tensor([float("nan"), 1.0]), bins=3), "range is not finite")
  expect_error(fn() = w.add_histogram("b", tensor([float("nan"), float("nan")])), "no value falls in the bins")
  expect_error(fn() = w.add_histogram("b", "abc"), "add_histogram(): values: expected a tensor or a list of numbers, got str")
  w.close()
}

test "images: the shape must match dataformats, with 1, 3 or 4 channels" {
  let w = log.SummaryWriter(root + "/image")
  w.add_image("ok", rand(1, 4, 4))
  w.add_image("hwc", rand(4, 4, 3), dataformats="hwc")
  expect_error(fn() = w.add_image("x", rand(4, 4)), "dataformats 'CHW' has 3 letters but the image has 2 dims (shape [4, 4])")
  expect_error(fn() = w.add_image("x", rand(2, 4, 4)), "an image has 1, 3 or 4 channels, got 2")
  expect_error(fn() = w.add_image("x", rand(3, 4, 4), dataformats="CHX"), "dataformats must be an order of HW, CHW or NCHW")
  expect_error(fn() = w.add_image("x", rand(3, 4, 4), dataformats="CCW"), "each letter once")
  expect_error(fn() = w.add_image("x", rand(2, 4, 4, 4), dataformats="NCHW"), "1 or 3 channels, got 4")
  expect_error(fn() = w.add_image("x", rand(3, 0, 4)), "the image is empty")
  expect_error(fn() = w.add_image("x", [1, 2]), "img_tensor")
  w.close()
}

test "text and hparams check their arguments" {
  let w = log.SummaryWriter(root + "/text")
  w.add_text("t", "hello", 1)
  expect_error(fn() = w.add_text("t", 3), "add_text(): text_string must be a str, got int")
  expect_error(fn() = w.add_hparams([1], {}), "hparam_dict must be a dict, got list")
  expect_error(fn() = w.add_hparams({"a": [1]}, {}), "hparam_dict['a'] must be a number, str, bool or one-element tensor, got list")
  expect_error(fn() = w.add_hparams({"a": 1}, {"m": "x"}, run_name="bad"), "add_hparams(): metric_dict['m'] must be a number or a one-element tensor, got str")
  write_text(root + "/text/bad", "")  # a file can be written there: the bad call made no run folder
  w.add_hparams({"a": 1}, {"m": 0.5}, run_name="r")
  w.flush()
  w.close()
}

test "the module log hides the op log, and the error says how to reach it" {
  expect_error(fn() = log(tensor(1.0)), "'import log' hides the builtin log in this file")
  expect_close(tensor(1.0).log(), tensor(0.0))
}
