# Anomaly mode (detect_anomaly { }, docs/debugging.md): the first op that makes a NaN
# or Inf from finite values stops the program at its DSL line, with a statistics line
# of what it read. In backward, the error is at the line that called backward and
# names the line of the forward op whose rule made the value.

# case: log(0) in forward names the line of the log



detect_anomaly {
  let x = tensor([1.0, 0.0, 2.0])
  let y = log(x) * 2.0
}
