# case: a NaN that was already there is not blamed on the ops it reaches; the next one made is


let nan_in = log(tensor([-1.0, 1.0]))            # [nan, 0], made outside the region
detect_anomaly {
  let y = nan_in * 2.0 + tensor([0.0, 2.0])     # passes the NaN on
  print(y)
  let z = zeros([1]) / zeros([1])
}
