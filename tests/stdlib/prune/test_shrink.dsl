# Structured channel pruning that really shrinks a Sequential CNN
# (prune.channel_plan, prune.shrink_channels; ctest dsl_tests).
import nn
import optim
import prune

fn small_cnn() = nn.Sequential([
  nn.Conv2d(2, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 12, 3, padding=1), nn.BatchNorm2d(12), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Dropout(0.0), nn.Linear(12 * 2 * 2, 5)])

# A trained-looking CNN: random weights and batch-norm statistics that moved.
fn warmed_cnn(seed) {
  manual_seed(seed)
  let net = small_cnn()
  no_grad { for p in net.parameters() { p.add_(randn(list(p.shape)) * 0.1) } }
  for i in range(3) { net(randn([6, 2, 8, 8])) }
  return net
}

# Conv2d(in, out, 3) + BatchNorm2d(out) + ... with c1, c2 channels kept: the parameter
# count of small_cnn after shrinking, from the layer formulas.
fn expected_parameters(c1, c2) = (c1 * 2 * 9 + c1) + 2 * c1 + (c2 * c1 * 9 + c2) + 2 * c2 + (5 * c2 * 4 + 5)

# Makes the input of `consumer` zero in the channels that `keep` leaves out: what
# removing those channels means for the original model.
fn zero_dropped_channels(consumer, keep, channels, per_channel) {
  let mask = zeros([channels])
  for k in keep { mask[tensor(k) == arange(channels)] = 1.0 }
  if per_channel == 0 {
    return consumer.register_forward_pre_hook(fn(m, input) = (input[0] * mask.reshape([1, channels, 1, 1]),))
  }
  let features = mask.reshape([channels, 1]).expand([channels, per_channel]).reshape([1, channels * per_channel])
  return consumer.register_forward_pre_hook(fn(m, input) = (input[0] * features,))
}

test "the plan keeps the filters of largest L1 norm, half of each conv" {
  let net = warmed_cnn(1)
  let plan = prune.channel_plan(net, amount=0.5)
  expect(len(plan) == 2)
  expect(plan[0]["conv"] == "0" and plan[0]["kind"] == "conv" and plan[0]["bns"] == [1] and plan[0]["next"] == 4)
  expect(plan[1]["conv"] == "4" and plan[1]["kind"] == "linear" and plan[1]["next"] == 10)
  expect(len(plan[0]["keep"]) == 4 and len(plan[1]["keep"]) == 6)
  let norms = net[0].weight.detach().abs().sum(dim=[1, 2, 3])
  let kept = zeros([8])
  for k in plan[0]["keep"] { kept = kept + (arange(8) == k).to(f32) }
  expect(norms[kept == 0].max().item() < norms[kept != 0].min().item())
  # the second conv is ranked on the input channels that stay (greedy)
  let w2 = index_select(net[4].weight.detach(), 1, tensor(plan[0]["keep"]))
  let norms2 = w2.abs().sum(dim=[1, 2, 3])
  let kept2 = zeros([12])
  for k in plan[1]["keep"] { kept2 = kept2 + (arange(12) == k).to(f32) }
  expect(norms2[kept2 == 0].max().item() < norms2[kept2 != 0].min().item())
}

test "the shrunk model's output equals the original's with those channels zeroed" {
  let net = warmed_cnn(2)
  let plan = prune.channel_plan(net, amount=0.5)
  let small = prune.shrink_channels(net, plan=plan)
  let x = randn([4, 2, 8, 8])
  # Zeroing a filter is not the same thing: its bias and the batch norm's shift still
  # reach ReLU. What is exact is zeroing the removed channels' activations where the
  # next layer reads them; the layers in between act on each channel alone.
  let h1 = zero_dropped_channels(net[4], plan[0]["keep"], 8, 0)
  let h2 = zero_dropped_channels(net[10], plan[1]["keep"], 12, 4)
  net.eval()
  small.eval()
  expect_close(small(x), net(x), rtol=1e-5, atol=1e-6)
  # in training mode too: batch statistics are per channel
  net.train()
  small.train()
  expect_close(small(x), net(x), rtol=1e-4, atol=1e-5)
  expect_close(small[5].running_mean, index_select(net[5].running_mean, 0, tensor(plan[1]["keep"])), rtol=1e-5, atol=1e-6)
  h1.remove()
  h2.remove()
  net.eval()
  small.eval()
  expect((small(x) - net(x)).abs().max().item() > 1e-3, "the removed channels mattered in the original")
}

test "the parameter count drops as the layer formulas say, and the original is untouched" {
  let net = warmed_cnn(3)
  let before = nn.count_parameters(net)
  expect(before == expected_parameters(8, 12))
  let x = randn([2, 2, 8, 8])
  net.eval()
  let y = net(x)
  let small = prune.shrink_channels(net, amount=0.5)
  expect(nn.count_parameters(small) == expected_parameters(4, 6), str(nn.count_parameters(small)))
  expect(small[0].out_channels == 4 and small[1].num_features == 4 and small[4].in_channels == 4)
  expect(small[4].out_channels == 6 and small[10].in_features == 24)
  expect(list(small[10].weight.shape) == [5, 24] and list(small[5].running_var.shape) == [6])
  expect(nn.count_parameters(net) == before)
  expect_close(net(x), y, rtol=0.0, atol=0.0)
  let quarter = prune.shrink_channels(net, amount=0.25)  # round(2.0) and round(3.0) go
  expect(nn.count_parameters(quarter) == expected_parameters(6, 9))
  let all_but_one = prune.shrink_channels(net, amount=1.0)  # at least one channel stays
  expect(nn.count_parameters(all_but_one) == expected_parameters(1, 1))
}

test "the shrunk model trains, and its state_dict has the smaller shapes" {
  let net = warmed_cnn(4)
  let small = prune.shrink_channels(net, amount=0.5)
  let opt = optim.Adam(small.parameters(), lr=0.01)
  let x = randn([8, 2, 8, 8])
  let y = randint(0, 5, [8])
  let first = cross_entropy(small(x), y).item()
  for i in range(10) {
    let loss = cross_entropy(small(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
  }
  expect(cross_entropy(small(x), y).item() < first)
  let sd = small.state_dict()
  expect(list(sd["0.weight"].shape) == [4, 2, 3, 3] and list(sd["4.weight"].shape) == [6, 4, 3, 3])
  let path = "/tmp/nabla_prune_shrunk.safetensors"
  save(small, path)
  let again = prune.shrink_channels(small_cnn(), amount=0.5)
  load(path, into=again)
  small.eval()
  again.eval()
  expect_close(again(x), small(x), rtol=0.0, atol=0.0)
}

test "a masked model shrinks with its masks made permanent; the original keeps them" {
  let net = warmed_cnn(5)
  prune.ln_structured(net[0], "weight", amount=0.5, n=1, dim=0)
  let plan = prune.channel_plan(net, amount=0.5)
  # the zeroed filters have norm 0, so they are the ones removed
  let alive = net[0].weight_mask.sum(dim=[1, 2, 3])
  let kept = []
  for k in range(8) {
    if alive[k].item() != 0 { kept.append(k) }
  }
  expect(plan[0]["keep"] == kept, str(plan[0]["keep"]))
  let small = prune.shrink_channels(net, plan=plan)
  expect(not prune.is_pruned(small) and prune.is_pruned(net))
  expect(nn.count_parameters(small) == expected_parameters(4, 6))
}

test "convs whose channels reach something unknown keep them" {
  manual_seed(6)
  let net = nn.Sequential([nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Sequential([nn.Conv2d(4, 6, 3), nn.BatchNorm2d(6)]),
                           nn.Conv2d(6, 2, 1)])
  let plan = prune.channel_plan(net, amount=0.5)
  expect(len(plan) == 2)  # the last conv is the output
  expect(plan[0]["conv"] == "0" and plan[1]["conv"] == "2.0" and plan[1]["bns"] == [3])
  let small = prune.shrink_channels(net, amount=0.5)
  expect(small[2][0].in_channels == 2 and small[2][0].out_channels == 3 and small[3].in_channels == 3)
  expect(small[3].out_channels == 2)
  expect(list(small(randn([1, 1, 7, 7])).shape) == [1, 2, 3, 3])
  let grouped = nn.Sequential([nn.Conv2d(1, 4, 3), nn.Conv2d(4, 4, 3, groups=2), nn.Softmax(1), nn.Conv2d(4, 1, 1)])
  expect(len(prune.channel_plan(grouped)) == 0)
  expect_error("import prune\nimport nn\nprune.shrink_channels(nn.Linear(2, 2))", "prune.channel_plan: expected an nn.Sequential, got Linear")
}
