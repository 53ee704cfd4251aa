# distill: knowledge distillation (Hinton, Vinyals and Dean, "Distilling the Knowledge
# in a Neural Network", 2015). A small student learns from a large teacher's
# softened outputs as well as from the labels:
#
#   let t_logits = none
#   no_grad { t_logits = teacher(xb) }
#   let loss = distill.kd_loss(student(xb), t_logits, yb, temperature=4.0, alpha=0.9)
import nn

# A temperature of 0 made every probability NaN and a negative one turned the teacher's
# ranking upside down, silently; an alpha outside [0, 1] weighs a term negatively.
fn _check_temperature(who, t) {
  if not (type(t) in ["int", "float"]) or not (t > 0) or t == float("inf") {
    fail(f"distill.{who}: temperature must be a positive finite number, got " + (repr(t) if type(t) in ["int", "float"] else type(t)))
  }
}

fn soft_targets(logits, temperature=4.0) {
  """softmax(logits / temperature) along the last dim: a teacher's class probabilities, softened so
  that the small ones carry its knowledge.

  Example: distill.soft_targets(randn(4, 10), temperature=4.0)
  """
  _check_temperature("soft_targets()", temperature)
  return softmax(logits / temperature, dim=-1)
}

# alpha * T^2 * KL(softmax(teacher / T) || softmax(student / T)) + (1 - alpha) *
# cross_entropy(student, target), the KL averaged over the batch ("batchmean"). T^2
# keeps the soft term's gradients (which scale as 1/T^2) comparable to the hard
# term's when T changes. The teacher's logits carry no gradient (detached here).
fn kd_loss(student_logits, teacher_logits, target, temperature=4.0, alpha=0.9) {
  """The distillation loss of Hinton et al. (2015): alpha * T^2 * KL(softmax(teacher / T) ||
  softmax(student / T)) + (1 - alpha) * cross_entropy(student, target), the teacher's logits
  detached.

  Example: distill.kd_loss(randn(8, 10, requires_grad=true), randn(8, 10), randint(10, [8]), temperature=4.0, alpha=0.9)
  """
  _check_temperature("kd_loss()", temperature)
  if not (type(alpha) in ["int", "float"]) or not (alpha >= 0 and alpha <= 1) {
    fail("distill.kd_loss(): alpha must be a number in [0, 1], got " + (repr(alpha) if type(alpha) in ["int", "float"] else type(alpha)))
  }
  let t = temperature
  let soft = nn.kl_div(log_softmax(student_logits / t, dim=-1), log_softmax(teacher_logits.detach() / t, dim=-1),
                       reduction="batchmean", log_target=true)
  if alpha == 1.0 { return soft * (t * t) }
  return soft * (alpha * t * t) + cross_entropy(student_logits, target) * (1.0 - alpha)
}
