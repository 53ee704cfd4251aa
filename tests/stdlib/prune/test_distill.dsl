# Knowledge distillation's loss (stdlib/distill.dsl) and nn.kl_div, against the
# formulas computed by hand with plain numbers (ctest dsl_tests).
import nn
import distill
import math

# softmax of a list of numbers at temperature t, with plain floats.
fn soft(xs, t) {
  let e = []
  let z = 0.0
  for x in xs {
    e.append(math.exp(x / t))
    z = z + math.exp(x / t)
  }
  let p = []
  for v in e { p.append(v / z) }
  return p
}

# KL(p || q) = sum p log(p / q), plain floats.
fn kl(p, q) {
  let s = 0.0
  for i in range(len(p)) { s = s + p[i] * math.log(p[i] / q[i]) }
  return s
}

let student = [[1.0, 2.0, 0.5], [0.2, -1.0, 3.0]]
let teacher = [[2.0, 4.0, -1.0], [0.0, 0.5, 2.5]]
let labels = [1, 0]

test "kd_loss is alpha T^2 KL(teacher_T || student_T) + (1 - alpha) CE, by hand" {
  let t = 3.0
  let alpha = 0.7
  let soft_part = 0.0
  let hard_part = 0.0
  for i in range(2) {
    soft_part = soft_part + kl(soft(teacher[i], t), soft(student[i], t)) / 2
    hard_part = hard_part - math.log(soft(student[i], 1.0)[labels[i]]) / 2
  }
  let expected = alpha * t * t * soft_part + (1 - alpha) * hard_part
  let got = distill.kd_loss(tensor(student), tensor(teacher), tensor(labels), temperature=t, alpha=alpha)
  expect_close(got, tensor(expected), rtol=1e-5, atol=1e-6)
  let only_soft = distill.kd_loss(tensor(student), tensor(teacher), tensor(labels), temperature=t, alpha=1.0)
  expect_close(only_soft, tensor(t * t * soft_part), rtol=1e-5, atol=1e-6)
  let only_hard = distill.kd_loss(tensor(student), tensor(teacher), tensor(labels), temperature=t, alpha=0.0)
  expect_close(only_hard, tensor(hard_part), rtol=1e-5, atol=1e-6)
}

test "the soft term's gradient is T (softmax(s/T) - softmax(t/T)) / batch, and none reaches the teacher" {
  let t = 2.0
  let s = tensor(student, requires_grad=true)
  let teach = tensor(teacher, requires_grad=true)
  distill.kd_loss(s, teach, tensor(labels), temperature=t, alpha=1.0).backward()
  for i in range(2) {
    let ps = soft(student[i], t)
    let pt = soft(teacher[i], t)
    for j in range(3) {
      expect_close(s.grad[i, j], tensor(t * (ps[j] - pt[j]) / 2), rtol=1e-5, atol=1e-6)
    }
  }
  expect(teach.grad == none)
}

test "kl_div follows PyTorch's F.kl_div: reductions and log_target" {
  let p = [0.2, 0.5, 0.3]
  let q = [0.1, 0.6, 0.3]
  let log_q = tensor([[math.log(0.1), math.log(0.6), math.log(0.3)]])
  let by_hand = kl(p, q)
  expect_close(nn.kl_div(log_q, tensor([p]), reduction="sum"), tensor(by_hand), rtol=1e-5, atol=1e-7)
  expect_close(nn.kl_div(log_q, tensor([p]), reduction="batchmean"), tensor(by_hand), rtol=1e-5, atol=1e-7)
  expect_close(nn.kl_div(log_q, tensor([p]), reduction="mean"), tensor(by_hand / 3), rtol=1e-5, atol=1e-7)
  let log_p = tensor([[math.log(0.2), math.log(0.5), math.log(0.3)]])
  expect_close(nn.kl_div(log_q, log_p, reduction="sum", log_target=true), tensor(by_hand), rtol=1e-5, atol=1e-7)
  # a zero target contributes 0 (0 log 0 = 0), not NaN, and its gradient is finite
  let x = tensor([[math.log(0.5), math.log(0.5)]], requires_grad=true)
  let l = nn.kl_div(x, tensor([[1.0, 0.0]]), reduction="sum")
  expect_close(l, tensor(-math.log(0.5)), rtol=1e-6, atol=1e-7)
  l.backward()
  expect(x.grad.tolist() == [[-1.0, 0.0]], str(x.grad.tolist()))
  expect_close(nn.KLDivLoss(reduction="batchmean")(log_q, tensor([p])), tensor(by_hand), rtol=1e-5, atol=1e-7)
  expect_error("import nn\nnn.kl_div(zeros([1, 2]), zeros([1, 2]), reduction='avg')", "kl_div: reduction must be")
}

test "soft_targets softens with the temperature" {
  let p1 = distill.soft_targets(tensor(teacher), temperature=1.0)
  let p4 = distill.soft_targets(tensor(teacher), temperature=4.0)
  expect(p4.max().item() < p1.max().item())
  expect_close(p4.sum(dim=1), ones([2]))
  expect_close(p4[0], tensor(soft(teacher[0], 4.0)), rtol=1e-5, atol=1e-7)
}
