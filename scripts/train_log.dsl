# --logdir DIR for the Fashion-MNIST training scripts: TensorBoard logs of the run
# (import log; docs/tools.md, "TensorBoard logs"), one point per epoch: the mean
# train loss, the test accuracy (or another metric), the learning rate and a
# histogram of every parameter. `tensorboard --logdir DIR` draws them.
#   import "train_log.dsl" as train_log
#   let writer = train_log.from_args(args)   # before reading args; none without --logdir
#   ... after each epoch:
#   train_log.log_epoch(writer, epoch + 1, net, opt, bar.mean_loss(), fn() = accuracy(test))
import log

# Takes `--logdir DIR` out of args (so the positional arguments read as before, as
# training_plot.from_args does with --plot) and returns a SummaryWriter on DIR, or
# none without it; none also where writes is false (the ranks of a data-parallel run
# but rank 0).
fn from_args(args, writes=true) {
  if not ("--logdir" in args) { return none }
  let at = args.index("--logdir")
  if at + 1 >= len(args) { fail("--logdir needs a folder: --logdir DIR") }
  let folder = args.pop(at + 1)
  args.remove("--logdir")
  return log.SummaryWriter(folder) if writes else none
}

# One epoch's points at step: train/loss, metric_tag (metric() is called only when
# logging: a test pass costs time), learning_rate, and each parameter's histogram.
fn log_epoch(writer, step, model, opt, train_loss, metric=none, metric_tag="test/accuracy") {
  if writer == none { return none }
  writer.add_scalar("train/loss", train_loss, step)
  if metric != none { writer.add_scalar(metric_tag, metric(), step) }
  writer.add_scalar("learning_rate", opt.lr, step)
  for (name, p) in model.named_parameters() { writer.add_histogram(name, p, step) }
  writer.flush()
}
