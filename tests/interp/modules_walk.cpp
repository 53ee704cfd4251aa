// The module walk (Note [Module walk] in interp/models/module_walk.hpp): a model that holds
// itself, a submodule held twice, a cycle at a distance, models in lists and dicts,
// tied weights. Each module and each tensor is visited once by every builtin that
// walks, state_dict names a shared module once (its first path), load_state_dict
// takes that back and also a key under another path, print shows a repeat by name.
#include <string>

#include "helpers.hpp"

using nabla::testing::Session;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A model with everything at once: a tied weight (head.weight is emb.weight), a
// shared submodule (again is enc), a cycle two long (b.back is the model), models in a
// list and a dict, and a list that holds itself.
const char* const kTangled = R"(
import nn
model Emb() { weight = nn.parameter([4, 2]) }
model Head() {
  weight = nn.parameter([4, 2])
  bias = nn.parameter([4])
}
model B() { n = 1 }
model Top() {
  emb = Emb()
  head = Head()
  enc = nn.Linear(2, 2)
}
let t = Top()
t.head.weight = t.emb.weight
t.again = t.enc
let b = B()
b.back = t
t.b = b
let loop = [t.enc]
loop.append(loop)
t.blocks = [t.enc, nn.Linear(1, 2), {"k": nn.Identity(), "top": t}, loop]
)";

}  // namespace

TEST_CASE("module walk: r.me = r ends everywhere") {
  Session s;
  s.run("import nn\nmodel R() { l = nn.Linear(2, 3) }\nlet r = R()\nr.me = r\nsetattr(r.l, 'me', r.l)");
  CHECK(s.run("print(len(r.parameters()), len(r.buffers()), nn.count_parameters(r))") == "2 0 9\n");
  CHECK(s.run("print(list(r.state_dict().keys()))") == "['l.weight', 'l.bias']\n");
  CHECK(s.run("print(len(r.modules()), len(r.named_parameters()))") == "2 2\n");
  CHECK(s.run("r.eval()\nprint(r.training, r.l.training)\nr.train()\nprint(r.me.l.training)") == "false false\ntrue\n");
  s.run("r.zero_grad()\nr.to('cpu')\nr.to(f64)\nr.load_state_dict(r.state_dict())");
  CHECK(s.run("print(r.l.weight.dtype)") == "f64\n");
  std::string printed = s.run("print(r)");
  CHECK(contains(printed, "(me): R(...)  # same module as the model itself"));
  CHECK(contains(printed, "(me): Linear(...)  # same module as l"));
  CHECK(contains(printed, "# 9 parameters in total"));
  // children() lists the model itself, as PyTorch's named_children does.
  CHECK(s.run("print(len(r.children()))") == "2\n");
}

TEST_CASE("module walk: shared, cyclic, contained and tied count once") {
  Session s;
  s.run(kTangled);
  // emb 8 + head.bias 4 (its weight is emb's) + enc 6 + blocks.1 4.
  CHECK(s.run("print(len(t.parameters()), nn.count_parameters(t))") == "6 22\n");
  CHECK(s.run("print(list(t.state_dict().keys()))") ==
        "['emb.weight', 'head.bias', 'enc.weight', 'enc.bias', 'blocks.1.weight', 'blocks.1.bias']\n");
  CHECK(s.run("for (n, m) in t.named_modules() { print(n, type(m)) }") ==
        " Top\nemb Emb\nhead Head\nenc Linear\nb B\nblocks.1 Linear\nblocks.2.k Identity\n");
  // apply: each module once, children before their parent (PyTorch's order).
  CHECK(s.run("let seen = []\nt.apply(fn(m) = seen.append(type(m)))\nprint(seen)") ==
        "['Emb', 'Head', 'Linear', 'B', 'Linear', 'Identity', 'Top']\n");
  std::string printed = s.run("print(t)");
  CHECK(contains(printed, "weight: Parameter[4, 2]  # same tensor as emb.weight"));
  CHECK(contains(printed, "(again): Linear(...)  # same module as enc"));
  CHECK(contains(printed, "(back): Top(...)  # same module as the model itself"));
  CHECK(contains(printed, "[...]  # same list as blocks.3"));
  CHECK(contains(printed, ")  # 22 parameters in total"));
}

TEST_CASE("module walk: state_dict round-trips; another path to a tensor loads too") {
  Session s;
  s.run(kTangled);
  s.run("t.load_state_dict(t.state_dict())");
  // PyTorch's state_dict would also list again.weight and head.weight: accepted,
  // and a tensor reached by one of its paths is not missing.
  s.run("let sd = t.state_dict()\nsd.pop('enc.weight')\nsd['again.weight'] = zeros([2, 2]) + 7\n"
        "sd['head.weight'] = zeros([4, 2]) + 3\nt.load_state_dict(sd)");
  CHECK(s.run("print(t.enc.weight[0, 0].item(), t.emb.weight[3, 1].item())") == "7.0 3.0\n");
  std::string e = s.error("let d = t.state_dict()\nd.pop('enc.bias')\nd['nope.weight'] = zeros([1])\nt.load_state_dict(d)");
  CHECK(contains(e, "2 problems"));
  CHECK(contains(e, "unexpected key 'nope.weight'"));
  CHECK(contains(e, "missing key 'enc.bias'"));
  CHECK(contains(s.error("let d2 = t.state_dict()\nd2['b.back.emb.weight'] = zeros([9])\nt.load_state_dict(d2)"),
                 "shape mismatch for 'b.back.emb.weight': the dict has [9], the model [4, 2]"));
}

TEST_CASE("module walk: children() dedupes; Sequential runs a repeated layer twice") {
  Session s;
  s.run("import nn\nlet l = nn.Linear(2, 2)\nlet seq = nn.Sequential([l, nn.ReLU(), l])");
  CHECK(s.run("print(len(seq.children()), len(seq.children(remove_duplicate=false)), len(seq))") == "2 3 3\n");
  CHECK(s.run("print(len(seq.parameters()), nn.count_parameters(seq))") == "2 6\n");
  CHECK(s.run("let x = ones([1, 2])\nprint((seq(x) - l(relu(l(x)))).abs().max().item())") == "0.0\n");
  CHECK(contains(s.error("seq.children(1)"), "children() takes no positional arguments"));
}

TEST_CASE("module walk: compile and quantization transforms of a self-referencing model") {
  Session s;
  s.run("import nn\nimport quant\nmodel F() {\n  l = nn.Linear(2, 3)\n  forward(x) = self.l(x)\n}\n"
        "let f = F()\nf.me = f\nf.also = f.l");
  CHECK(s.run("let gm = compile(f, ones([1, 2]))\nprint(gm(ones([1, 2])).shape)") == "(1, 3)\n");
  // The shared Linear becomes one quantized module, held in both fields.
  CHECK(s.run("let q = quant.quantize_dynamic(f)\nprint(q.l == q.also, q.me == q, type(q.l))") ==
        "true true DynamicQuantizedLinear\n");
}

TEST_CASE("module walk: a million nested lists deepcopy without recursion") {
  Session s;
  s.run("let d = []\nlet x = d\nfor i in range(1000000) {\n  let n = []\n  x.append(n)\n  x = n\n}\nlet c = deepcopy(d)");
  CHECK(s.run("let y = c\nlet k = 0\nwhile len(y) > 0 {\n  y = y[0]\n  k = k + 1\n}\nprint(k)") == "1000000\n");
  s.run("d = none\nc = none\nx = none\ny = none");
}
