# case: a NaN made only in backward (sqrt at 0 is finite, its derivative is not) names the forward line



let x = tensor([1.0, 0.0, 4.0], requires_grad=true)
detect_anomaly {
  let y = sqrt(x)
  y.sum().backward()
}
