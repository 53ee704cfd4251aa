# A chain of 200,000 nested modules whose last one holds the first: the walks keep
# their own stack (Note [Module walk]), so none of them overflows the 8 MiB stack,
# loops, or takes quadratic time; print(model) stops nesting at 64 levels.
# status: 0
# timeout: 120
# expect: 200001 200001 200001
# expect: false true
# expect: 200001
# expect: )  # 200,001 parameters in total
# expect: 200001 true
import nn
model Node() {
  w = zeros([1], requires_grad=true)
}
let root = Node()
let m = root
for i in range(200000) {
  let n = Node()
  m.child = n
  m = n
}
m.child = root
m = none
print(len(root.parameters()), len(root.modules()), nn.count_parameters(root))
root.eval()
let last = root
for i in range(200000) { last = last.child }
let eval_flag = last.training
root.train()
print(eval_flag, last.training)
root.zero_grad()
root.to("cpu")
let calls = [0]
root.apply(fn(x) = calls.append(1))
print(len(calls) - 1)
let text = str(root)
print(text.split("\n")[-1])
let c = deepcopy(root)
print(len(c.modules()), c.child.child != root.child.child)
