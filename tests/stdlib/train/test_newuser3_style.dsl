# Neural style transfer as a PyTorch user writes it: a frozen conv feature extractor
# (requires_grad_(false)), Gram matrices of its feature maps, a content loss on one layer
# and a style loss on all, and the INPUT image as the only thing optimized, by
# optim.LBFGS with a closure and by Adam. The loss, the gradient on the image and a
# 5-iteration LBFGS step are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser3.py).
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

fn gram(f) {
  let (b, c, h, w) = f.shape
  let flat = f.view(b, c, h * w)
  return flat @ flat.transpose(1, 2) / (c * h * w)
}

model Features() {
  layers = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU())
  forward(x) {
    let outs = []
    for layer in self.layers {
      x = layer(x)
      if isinstance(layer, nn.ReLU) { outs.append(x) }
    }
    return outs
  }
}

fn style_loss(net, img, content_feats, style_grams) {
  let feats = net(img)
  let content = nn.functional.mse_loss(feats[1], content_feats[1])
  let style = sum([nn.functional.mse_loss(gram(f), g) for (f, g) in zip(feats, style_grams)])
  return content + 1e3 * style
}

fn setup() {
  let net = Features().double().requires_grad_(false)
  net.load_state_dict({k: ref["style." + k] for k in net.state_dict().keys()})
  let content_feats = net(ref["style.content"])
  let style_grams = [gram(f) for f in net(ref["style.style"])]
  return (net, content_feats, style_grams)
}

test "the style loss and its gradient on the input image match PyTorch's" {
  let (net, content_feats, style_grams) = setup()
  let img = ref["style.content"].clone().requires_grad_(true)
  let loss = style_loss(net, img, content_feats, style_grams)
  expect_close(loss, ref["style.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  expect_close(img.grad, ref["style.grad_img"], rtol=1e-9, atol=1e-13)
  for p in net.parameters() { expect(p.grad == none, "the frozen network gets no gradient") }
}

test "LBFGS over the image with a closure matches PyTorch's step" {
  let (net, content_feats, style_grams) = setup()
  let img = ref["style.content"].clone().requires_grad_(true)
  let opt = optim.LBFGS([img], lr=1, max_iter=5)
  fn closure() {
    opt.zero_grad()
    let loss = style_loss(net, img, content_feats, style_grams)
    loss.backward()
    return loss
  }
  let first = opt.step(closure)
  expect_close(first, ref["style.lbfgs_first_loss"], rtol=1e-12, atol=1e-14)
  expect_close(img, ref["style.lbfgs_img"], rtol=1e-7, atol=1e-10)
  let after = style_loss(net, img, content_feats, style_grams)
  expect_close(after, ref["style.lbfgs_loss"], rtol=1e-7, atol=1e-10)
  expect(after.item() < first.item())
}

test "Adam on the image, clamped to [0, 1] under no_grad, lowers the style loss" {
  manual_seed(0)
  let net = Features().requires_grad_(false)
  let content = rand(1, 3, 16, 16)
  let style = rand(1, 3, 16, 16)
  let content_feats = net(content)
  let style_grams = [gram(f) for f in net(style)]
  let img = content.clone().requires_grad_(true)
  let opt = optim.Adam([img], lr=2e-2)
  let first = style_loss(net, img, content_feats, style_grams).item()
  for step in range(60) {
    let loss = style_loss(net, img, content_feats, style_grams)
    opt.zero_grad()
    loss.backward()
    opt.step()
    no_grad { img.clamp_(0, 1) }
  }
  let last = style_loss(net, img, content_feats, style_grams).item()
  expect(last < 0.3 * first, f"the style loss should fall: {first} -> {last}")
  expect(img.min().item() >= 0 and img.max().item() <= 1)
  expect(img.is_leaf and img.requires_grad, "the image stays a leaf being optimized")
}

# PyTorch's tutorial builds the model by walking a pretrained CNN's children into a new
# nn.Sequential with add_module, inserting loss modules that record self.loss in forward,
# then cuts everything after the last loss with a slice
model ContentLoss(target) {
  target = target.detach()
  loss = 0.0
  forward(input) {
    self.loss = nn.functional.mse_loss(input, self.target)
    return input
  }
}

model StyleLoss(target_feature) {
  target = gram(target_feature).detach()
  loss = 0.0
  forward(input) {
    self.loss = nn.functional.mse_loss(gram(input), self.target)
    return input
  }
}

test "the tutorial's add_module model, cut with a slice, keeps its names and LBFGS runs it" {
  manual_seed(0)
  let cnn = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(4, 4, 3, padding=1)).eval()
  let (content_img, style_img) = (rand(1, 3, 8, 8), rand(1, 3, 8, 8))
  let model = nn.Sequential()
  let (content_losses, style_losses) = ([], [])
  let i = 0
  for layer in cnn.children() {
    let name = ""
    if isinstance(layer, nn.Conv2d) { i += 1; name = f"conv_{i}" }
    elif isinstance(layer, nn.ReLU) { name = f"relu_{i}" }
    else { name = f"pool_{i}" }
    model.add_module(name, layer)
    if name == "conv_2" {
      let cl = ContentLoss(model(content_img).detach())
      model.add_module(f"content_loss_{i}", cl)
      content_losses.append(cl)
    }
    if name == "conv_1" or name == "conv_2" {
      let sl = StyleLoss(model(style_img).detach())
      model.add_module(f"style_loss_{i}", sl)
      style_losses.append(sl)
    }
  }
  let k = len(model) - 1
  while k >= 0 and not (isinstance(model[k], ContentLoss) or isinstance(model[k], StyleLoss)) { k -= 1 }
  model = model[:(k + 1)]
  expect(len(model) == 6, f"{len(model)} layers kept")
  let keys = list(model.state_dict().keys())
  expect(keys == ["conv_1.weight", "conv_1.bias", "conv_2.weight", "conv_2.bias"], f"the slice keeps the names: {keys}")
  expect(isinstance(model.style_loss_2, StyleLoss))
  let input_img = content_img.clone().requires_grad_(true)
  model.requires_grad_(false)
  let optimizer = optim.LBFGS([input_img])
  let run = [0]
  let first = none
  fn closure() {
    no_grad { input_img.clamp_(0, 1) }
    optimizer.zero_grad()
    model(input_img)
    let style_score = sum([sl.loss for sl in style_losses]) * 1e4
    let content_score = sum([cl.loss for cl in content_losses])
    let loss = style_score + content_score
    loss.backward()
    run[0] += 1
    if first == none { first = loss.item() }
    return loss
  }
  while run[0] <= 20 { optimizer.step(closure) }
  let last = closure().item()
  expect(last < 0.1 * first, f"the loss falls: {first} -> {last}")
}
