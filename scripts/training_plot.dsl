# The --plot option of the training scripts: `--plot PATH` (.svg or .png, anywhere
# among the arguments) draws the train loss of every step and, when the script gives
# one, a test metric after each epoch (at the step it was measured), written to PATH
# when training ends. Without the option every function here does nothing, so a run
# without --plot trains and prints exactly as before.
#   import "training_plot.dsl" as training_plot
#   let curves = training_plot.from_args(args, "Fashion-MNIST MLP")  # before reading args
#   training_plot.record_step(curves, loss)                           # each step
#   training_plot.record_epoch(curves, fn() = accuracy(test))         # each epoch
#   training_plot.save(curves)                                        # at the end
import plot

# Takes `--plot PATH` out of args (so the positional arguments read as before) and
# returns what the run records, or none without the option.
fn from_args(args, title, epoch_metric="test accuracy") {
  if not ("--plot" in args) { return none }
  let at = args.index("--plot")
  if at + 1 >= len(args) { fail("--plot needs a path (.svg or .png) after it") }
  let path = args.pop(at + 1)
  args.remove("--plot")
  return {"path": path, "title": title, "metric": epoch_metric, "losses": [], "metric_steps": [], "metric_values": []}
}

# The train loss of one step (a tensor or a number).
fn record_step(curves, loss) {
  if curves != none { curves["losses"].append(float(loss)) }
}

# The epoch's test metric, measure() called only when plotting.
fn record_epoch(curves, measure) {
  if curves != none {
    curves["metric_steps"].append(len(curves["losses"]) - 1)
    curves["metric_values"].append(float(measure()))
  }
}

# Writes the figure: "train loss" per step, the metric per epoch, on one step axis.
fn save(curves) {
  if curves == none { return none }
  let fig = plot.Figure(title=curves["title"], xlabel="step", ylabel="train loss / " + curves["metric"])
  fig.line(curves["losses"], label="train loss")
  if len(curves["metric_values"]) > 0 {
    fig.line(curves["metric_values"], xs=curves["metric_steps"], label=curves["metric"])
  }
  fig.save(curves["path"])
  print(f"wrote {curves['path']}")
}
