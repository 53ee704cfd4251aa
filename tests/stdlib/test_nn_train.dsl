# Training end to end through conv, batch norm, pooling and dropout (nabla test tests/stdlib).
import nn
test "a small CNN with BatchNorm and Dropout learns to tell two patterns apart" {
  manual_seed(13)
  let n = 32
  let labels = randint(0, 2, [n])
  let x = randn([n, 1, 6, 6]) * 0.5
  # class 1: a bright top half; class 0: a bright bottom half
  let top = labels.to(f32).reshape([n, 1, 1, 1])
  x = x + cat([top.expand([n, 1, 3, 6]), (1.0 - top).expand([n, 1, 3, 6])], dim=2) * 2.0
  let m = nn.Sequential([nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Dropout(0.2), nn.Linear(36, 2)])
  let loss_fn = nn.CrossEntropyLoss()
  let first = loss_fn(m(x), labels).item()
  let last = first
  for step in range(60) {
    m.zero_grad()
    let loss = loss_fn(m(x), labels)
    loss.backward()
    nn.clip_grad_norm_(m, 5.0)
    no_grad {
      for p in m.parameters() { p.sub_(p.grad * 0.1) }
    }
    last = loss.item()
  }
  m.eval()
  let acc = (m(x).argmax(dim=1) == labels).to(f32).mean().item()
  expect(last < first / 4.0, f"loss {first} -> {last}")
  expect(acc == 1.0, f"accuracy {acc}")
}
