# Knowledge distillation on Fashion-MNIST: the CNN of scripts/compress_common.dsl
# (trained, or loaded from the checkpoint that prune_cnn.dsl leaves with the same
# settings) teaches a small MLP. The student's loss is Hinton's
#   alpha * T^2 * KL(softmax(teacher / T) || softmax(student / T)) + (1 - alpha) * CE(student, y)
# (distill.kd_loss); a second MLP of the same size, from the same initial weights and
# with the same batches, learns from the labels alone. Prints the three accuracies,
# sizes and inference speeds.
#   nabla scripts/distill.dsl [teacher_epochs] [student_epochs] [train_items] [hidden] [temperature] [alpha] [checkpoint]
# Defaults: 3, 20, 60000, 64 hidden units, T = 2, alpha = 0.5, the teacher kept in
# /tmp (checkpoint "none": always train it). T and alpha come from a sweep on a
# validation split (docs/compression.md): T = 4, alpha = 0.9, common for large
# students, helps this small MLP less. The teacher's logits for the training images
# are computed once (it is in eval mode, so they are the same every epoch).
import nn
import data
import distill
import "compress_common.dsl" as common

let teacher_epochs = int(args[0]) if len(args) > 0 else 3
let student_epochs = int(args[1]) if len(args) > 1 else 20
let train_items = int(args[2]) if len(args) > 2 else 60000
let hidden = int(args[3]) if len(args) > 3 else 64
let temperature = float(args[4]) if len(args) > 4 else 2.0
let alpha = float(args[5]) if len(args) > 5 else 0.5
let checkpoint = args[6] if len(args) > 6 else common.cnn_checkpoint(teacher_epochs, train_items)

manual_seed(0)
let (train, test) = common.load_data(train_items)
let batch64 = test.x[0:64]

# ---- the teacher ---------------------------------------------------------------------
let teacher = common.make_cnn()
if checkpoint != "none" {
  let trained = common.trained_cnn(train, teacher_epochs, checkpoint)
  teacher = trained[0]
  print(f"teacher: {'loaded from' if trained[2] else 'trained ' + str(teacher_epochs) + ' epochs, saved to'} {checkpoint}")
} else {
  common.fit(teacher, train, teacher_epochs, desc="teacher")
}
manual_seed(1)
teacher.eval()
let logit_batches = []
no_grad {
  for xb in data.TensorDataset(train.x).batches(500) { logit_batches.append(teacher(xb)) }
}
let teacher_logits = cat(logit_batches)

# ---- the students: same initial weights, same batches -------------------------------
let student_ce = common.make_mlp(hidden)
let student_kd = deepcopy(student_ce)
# Items are (image, index): the index finds the label and the teacher's logits.
let indexed = data.TensorDataset(train.x, arange(len(train)))
fn kd_loss_of(net, xb, index) = distill.kd_loss(net(xb), index_select(teacher_logits, 0, index),
                                                index_select(train.y, 0, index), temperature=temperature, alpha=alpha)
fn ce_loss_of(net, xb, index) = cross_entropy(net(xb), index_select(train.y, 0, index))
manual_seed(2)
let kd_seconds = common.fit(student_kd, indexed, student_epochs, desc="student (distilled)", loss_of=kd_loss_of)
manual_seed(2)
let ce_seconds = common.fit(student_ce, indexed, student_epochs, desc="student (labels)", loss_of=ce_loss_of)

# ---- report -------------------------------------------------------------------------------
print(f"\nT = {temperature}, alpha = {alpha}, students {hidden} hidden units, {student_epochs} epochs " +
      f"({kd_seconds:.1f} s distilled, {ce_seconds:.1f} s on labels)")
print("model                 parameters  accuracy  ms/batch64  images/s  graph ms")
let named = [("teacher (CNN)", teacher), ("student (distilled)", student_kd), ("student (labels)", student_ce)]
let nets = []
for (name, net) in named { nets.append(net) }
let times = common.speeds(nets, batch64)
let accs = []
for k in range(len(named)) {
  let (name, net) = named[k]
  let acc = common.accuracy(net, test)
  let t = times[k]
  accs.append(acc)
  print(f"{name:<20} {nn.count_parameters(net):>11} {acc:>9.4f} {t['eager']:>11.3f} {64000.0 / t['eager']:>9.0f} {t['graph']:>9.3f}")
}
print(f"distill_summary teacher_accuracy={accs[0]:.4f} distilled_accuracy={accs[1]:.4f} labels_accuracy={accs[2]:.4f} " +
      f"gain={(accs[1] - accs[2]) * 100:.2f}")
