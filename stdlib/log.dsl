# log: TensorBoard logs, as torch.utils.tensorboard's SummaryWriter writes them.
# The events files and their summaries are native (the `_log` module, interp/log/):
# TFRecord framing with masked CRC-32C around Event protobufs made by libprotobuf.
import _log
import time

model SummaryWriter(log_dir=none, comment="", max_queue=10, flush_secs=120, filename_suffix="") {
  """A writer of TensorBoard events files, as torch.utils.tensorboard.SummaryWriter.

  It writes in log_dir (made when missing; none: runs/<date>_<host><comment>), with PyTorch's methods:
  add_scalar, add_scalars, add_histogram, add_image, add_text, add_hparams, flush and close. A folder
  that cannot be written is an error here, not at the first add_scalar. Events are written every
  max_queue events or flush_secs seconds, by flush() and close(), and when the program ends.

  Example: let writer = log.SummaryWriter("runs/example"); writer.add_scalar("loss", 0.5, 1); writer.close()
  """
  log_dir = log_dir if log_dir != none else _log.default_log_dir(comment)
  filename_suffix = filename_suffix
  max_queue = max_queue
  flush_secs = flush_secs
  _file = _log.open(log_dir, filename_suffix, max_queue, flush_secs)
  _all_writers = {}  # add_scalars' runs, by folder

  get_logdir() {
    """The folder this writer writes its events file in.

    Example: log.SummaryWriter("runs/example").get_logdir()
    """
    return self.log_dir
  }
  add_scalar(tag, scalar_value, global_step=none, walltime=none) {
    """Logs scalar_value (a number or a one-element tensor, written as f32; NaN and inf as they are) under tag
    at global_step; walltime defaults to now.

    Example: log.SummaryWriter("runs/example").add_scalar("train/loss", 0.42, global_step=100)
    """
    _log.add_scalar(self._file, tag, scalar_value, global_step, walltime)
  }
  add_scalars(main_tag, tag_scalar_dict, global_step=none, walltime=none) {
    """Logs each value of tag_scalar_dict under main_tag, each in its own run (the folder
    <log_dir>/<main_tag with / as _>_<tag>), so TensorBoard draws them on one chart, as PyTorch does.

    Example: log.SummaryWriter("runs/example").add_scalars("loss", {"train": 0.4, "test": 0.5}, 1)
    """
    if type(main_tag) != "str" { fail(f"add_scalars(): main_tag must be a str, got {type(main_tag)}") }
    if type(tag_scalar_dict) != "dict" { fail(f"add_scalars(): tag_scalar_dict must be a dict, got {type(tag_scalar_dict)}") }
    let wall = walltime if walltime != none else time.time()
    for tag, value in tag_scalar_dict.items() {
      if type(tag) != "str" { fail(f"add_scalars(): the keys of tag_scalar_dict must be strs, got {type(tag)}") }
      let run = self.log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
      if not (run in self._all_writers) {
        self._all_writers[run] = _log.open(run, self.filename_suffix, self.max_queue, self.flush_secs)
      }
      _log.add_scalar(self._all_writers[run], main_tag, value, global_step, wall)
    }
  }
  add_histogram(tag, values, global_step=none, bins="tensorflow", walltime=none, max_bins=none) {
    """Logs a histogram of values (a tensor or a list of numbers) as torch.utils.tensorboard computes it:
    bins "tensorflow" (TensorBoard's exponential buckets), a number of equal bins between the least and
    greatest value, or a list of edges; at most max_bins buckets.

    Example: log.SummaryWriter("runs/example").add_histogram("fc1.weight", randn(256, 784), global_step=1)
    """
    _log.add_histogram(self._file, tag, values, global_step, bins, walltime, max_bins)
  }
  add_image(tag, img_tensor, global_step=none, walltime=none, dataformats="CHW") {
    """Logs an image as a PNG: img_tensor laid out as dataformats (CHW, HWC, HW, or NCHW for a grid of N
    images), floats in [0, 1] (times 255) or u8 in [0, 255], with 1 (gray), 3 (RGB) or 4 (RGBA) channels.

    Example: log.SummaryWriter("runs/example").add_image("sample", rand(1, 28, 28), global_step=1)
    """
    _log.add_image(self._file, tag, img_tensor, global_step, walltime, dataformats)
  }
  add_text(tag, text_string, global_step=none, walltime=none) {
    """Logs text_string for the text plugin (markdown), under tag/text_summary as PyTorch names it.

    Example: log.SummaryWriter("runs/example").add_text("notes", "lr **1e-3**", global_step=1)
    """
    _log.add_text(self._file, tag, text_string, global_step, walltime)
  }
  add_hparams(hparam_dict, metric_dict, run_name=none) {
    """Logs a run's hyperparameters (numbers, strs, bools) and its final metrics for the hparams plugin, in
    the run <log_dir>/<run_name> (the current time by default), as PyTorch does: the experiment, the
    session's start and end, and each metric as a scalar.

    Example: log.SummaryWriter("runs/example").add_hparams({"lr": 1e-3, "optimizer": "adam"}, {"accuracy": 0.88})
    """
    let name = run_name if run_name != none else str(time.time())
    if type(name) != "str" { fail(f"add_hparams(): run_name must be a str, got {type(name)}") }
    _log.add_hparams(self.log_dir + "/" + name, hparam_dict, metric_dict, self.filename_suffix)
  }
  flush() {
    """Writes every event logged so far to disk.

    Example: log.SummaryWriter("runs/example").flush()
    """
    _log.flush(self._file)
    for run in self._all_writers.values() { _log.flush(run) }
  }
  close() {
    """Flushes and closes the events files; logging after it is an error.

    Example: log.SummaryWriter("runs/example").close()
    """
    _log.close(self._file)
    for run in self._all_writers.values() { _log.close(run) }
  }
}
