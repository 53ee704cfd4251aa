# nn.checkpoint inside an FSDP unit (and around it): the backward fails on every rank
# with an error that says what to do, and each rank exits with status 1, not an
# abort: the autograd graph the error leaves (a cycle through a custom function's
# context) is emptied at exit without touching freed objects (interp/values/cycles.cpp).
#   nabla launch -n 2 tests/dist/fsdp_checkpoint_inside.dsl      (ctest dist_fsdp_checkpoint_inside)
import dist
import nn

dist.init(timeout=30)
model Inner(d) {
  a = nn.Linear(d, d)
  b = nn.Linear(d, d)
  forward(x) = nn.checkpoint(self.b, tanh(self.a(x)))
}
model Net(d) {
  first = nn.Linear(4, d)
  inner = Inner(d)
  last = nn.Linear(d, 2)
  forward(x) = self.last(tanh(nn.checkpoint(self.inner, tanh(self.first(x)))))
}
let fsdp = dist.FullyShardedDataParallel(Net(6).to(f64), auto_wrap=["Inner"])
mse_loss(fsdp(randn([3, 4], dtype=f64)), randn([3, 2], dtype=f64)).backward()
