# case: error in an op names the function that called it



fn layer(x, w) = x @ w
fn run_model(x) = layer(x, ones([5, 2]))
run_model(ones([4, 3]))
