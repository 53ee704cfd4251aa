# Knowledge distillation as PyTorch code writes it: a trained teacher in eval mode under
# no_grad, a smaller student trained on KLDivLoss(batchmean) between temperature-softened
# distributions (times T^2) plus cross-entropy on the labels, with SGD and OneCycleLR.
import nn
import optim
import distill

fn make_data() {
  manual_seed(0)
  let x = randn([256, 10])
  return (x, (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 0.5).long())
}

fn kd(s_logits, t_logits, y, T, alpha) {
  let soft = nn.KLDivLoss(reduction="batchmean")(log_softmax(s_logits / T, dim=1), softmax(t_logits / T, dim=1))
  return alpha * soft * T * T + (1 - alpha) * cross_entropy(s_logits, y)
}

test "a student learns from a teacher's softened outputs" {
  let (x, y) = make_data()
  let teacher = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 3))
  let opt_t = optim.Adam(teacher.parameters(), lr=1e-2)
  for s in range(100) {
    let loss = nn.CrossEntropyLoss()(teacher(x), y)
    opt_t.zero_grad()
    loss.backward()
    opt_t.step()
  }
  teacher.eval()
  let t_before = teacher[0].weight.clone()
  let student = nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 3))
  let opt = optim.SGD(student.parameters(), lr=0.1, momentum=0.9)
  let sched = optim.OneCycleLR(opt, max_lr=0.2, total_steps=100)
  let losses = []
  for s in range(100) {
    let t_logits = none
    no_grad { t_logits = teacher(x) }
    let loss = kd(student(x), t_logits, y, 4.0, 0.7)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.1 * losses[0], f"{losses[0]} -> {losses[-1]}")
  expect(equal(teacher[0].weight, t_before), "the student's steps never touch the teacher")
  # torch.optim.lr_scheduler.OneCycleLR(SGD(lr=0.1, momentum=0.9), max_lr=0.2, total_steps=100)
  # after 100 steps: lr 0.0001014929430951465, momentum 0.9499496533270657
  expect(abs(sched.get_last_lr()[0] - 0.0001014929430951465) < 1e-12)
  expect(abs(opt.param_groups[0]["momentum"] - 0.9499496533270657) < 1e-12)
  expect_error(fn() = sched.step(), "past total_steps=100")
  no_grad {
    let agree = (student(x).argmax(1) == teacher(x).argmax(1)).float().mean().item()
    expect(agree > 0.9, f"the student agrees with the teacher on {agree}")
  }
}

test "the hand-written loss is the distill module's kd_loss" {
  manual_seed(3)
  let (s, t, y) = (randn([8, 3]), randn([8, 3]), randint(0, 3, [8]))
  let mine = kd(s, t, y, 2.0, 0.5)
  let lib = distill.kd_loss(s, t, y, 2.0, 0.5)
  expect(allclose(mine, lib, atol=1e-6), f"{mine} vs {lib}")
}
