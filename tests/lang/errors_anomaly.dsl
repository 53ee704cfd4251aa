# Anomaly mode (detect_anomaly { }, docs/debugging.md): the first op that makes a NaN
# or Inf from finite values stops the program at its DSL line, with a statistics line
# of what it read. In backward, the error is at the line that called backward and
# names the line of the forward op whose rule made the value.

# case: log(0) in forward names the line of the log
# expect error: tests/lang/errors_anomaly.dsl:12:11: error: anomaly: log produced Inf (1 of 3 values) in forward from finite inputs: input f32[3] min=0 max=2 mean=1 nan=0 inf=0
# expect error line:     let y = log(x) * 2.0
# expect error line:             ^~~~~~
detect_anomaly {
  let x = tensor([1.0, 0.0, 2.0])
  let y = log(x) * 2.0
}
# ---
# case: a NaN made only in backward (sqrt at 0 is finite, its derivative is not) names the forward line
# expect error: tests/lang/errors_anomaly.dsl:22:3: error: anomaly: backward of SqrtBackward produced Inf (1 of 3 values) in the gradient of its input 0; the forward op was called at tests/lang/errors_anomaly.dsl:21:11; it was given grad f32[3] min=1 max=1 mean=1 nan=0 inf=0; saved output 0 f32[3] min=0 max=2 mean=1 nan=0 inf=0
# expect error line:     y.sum().backward()
# expect error line:     ^~~~~~~~~~~~~~~~~~
let x = tensor([1.0, 0.0, 4.0], requires_grad=true)
detect_anomaly {
  let y = sqrt(x)
  y.sum().backward()
}
# ---
# case: a NaN that was already there is not blamed on the ops it reaches; the next one made is
# expect: tensor([nan, 2.])
# expect error: tests/lang/errors_anomaly.dsl:32:11: error: anomaly: div produced NaN (1 of 1 values) in forward from finite inputs: self f32[1] min=0 max=0 mean=0 nan=0 inf=0; other f32[1] min=0 max=0 mean=0 nan=0 inf=0
let nan_in = log(tensor([-1.0, 1.0]))            # [nan, 0], made outside the region
detect_anomaly {
  let y = nan_in * 2.0 + tensor([0.0, 2.0])     # passes the NaN on
  print(y)
  let z = zeros([1]) / zeros([1])
}
