# Anomaly mode checks every rule of a 3 * 10^5-node backward, one after another
# (issue 25), then reports the NaN made at the bottom of the chain.
# status: 1
# timeout: 120
# expect stderr: anomaly: backward of SqrtBackward produced
let x = zeros([1], requires_grad=true)
let y = x.sqrt()
for i in range(300000) { y = y * 1.0 }
detect_anomaly { y.backward() }
