// torch.Generator: a random stream of its own beside the global one, and the
// `generator=` keyword of the random functions that draws from it.
//
// Note [A Generator is a saved state]
// nabla's tensors draw from one generator (tensor/random.hpp: a SplitMix64 state of 64
// bits). A Generator object holds such a state of its own; a draw given generator=g
// swaps g's state in for the global one, draws, keeps the state it reached in g and
// puts the global one back (GeneratorScope), so the draws of g form one reproducible
// stream that neither moves nor is moved by the global generator's (epsilon-greedy
// exploration seeded apart from the weights' init, a DataLoader's shuffle). The same
// seed gives the same numbers as manual_seed(seed) followed by the same draws. Under
// compile() a draw is an op of the graph that draws from the global generator at each
// call, so a draw from a Generator is an untraced effect, as manual_seed is, and
// compile() refuses it. deepcopy shares a Generator, as it shares every native object
// (PyTorch 1.13 cannot copy one at all); g.get_state() and set_state() copy a position.
#include <random>
#include <string>

#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

// torch.Generator's default seed (torch.Generator().initial_seed())
constexpr uint64_t kDefaultSeed = 67280421310721ull;

struct GeneratorObj : ObjectObj {
  uint64_t state = 0;
  uint64_t seed = kDefaultSeed;
};

// The global generator's state after manual_seed(seed), leaving the global one as it was.
uint64_t state_for_seed(uint64_t seed) {
  const uint64_t saved = generator_state();
  manual_seed(seed);
  const uint64_t state = generator_state();
  set_generator_state(saved);
  return state;
}

GeneratorObj* as_generator(const Value& v, const std::string& who) {
  auto* g = v.tag == Tag::Object ? dynamic_cast<GeneratorObj*>(v.as<ObjectObj>()) : nullptr;
  if (!g) fail(who + ": generator must be a Generator (Generator().manual_seed(n)), got " + type_name(v));
  return g;
}

void reseed(GeneratorObj& g, uint64_t seed) {
  g.seed = seed;
  g.state = state_for_seed(seed);
}

Value generator_manual_seed(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator.manual_seed", a, {"self", "seed"}, 2);
  reseed(*as_generator(b[0], "Generator.manual_seed()"),
         static_cast<uint64_t>(as_int(b[1], "Generator.manual_seed(): seed")));
  return b[0];  // torch's manual_seed returns the generator: Generator().manual_seed(0)
}

// A fresh seed from the machine, as torch.Generator.seed() (not reproducible, by design)
Value generator_seed(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator.seed", a, {"self"}, 1);
  const uint64_t seed = (static_cast<uint64_t>(std::random_device{}()) << 20) ^ std::random_device{}();
  reseed(*as_generator(b[0], "Generator.seed()"), seed);
  return Value::integer(static_cast<int64_t>(seed));
}

Value generator_initial_seed(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator.initial_seed", a, {"self"}, 1);
  return Value::integer(static_cast<int64_t>(as_generator(b[0], "Generator.initial_seed()")->seed));
}

// The state as an int, as get_rng_state() gives the global one's
Value generator_get_state(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator.get_state", a, {"self"}, 1);
  return Value::integer(static_cast<int64_t>(as_generator(b[0], "Generator.get_state()")->state));
}

Value generator_set_state(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator.set_state", a, {"self", "new_state"}, 2);
  as_generator(b[0], "Generator.set_state()")->state =
      static_cast<uint64_t>(as_int(b[1], "Generator.set_state(): new_state (an int from get_state())"));
  return b[0];
}

// Generator(device="cpu"): a generator seeded with torch's default seed
Value generator_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("Generator", a, {"device"}, 0);
  std::string device = "cpu";
  if (b.has(0)) {
    if (b[0].tag != Tag::Str)
      fail(std::string("Generator(): device must be a str such as \"cpu\", got ") + type_name(b[0]));
    device = b[0].as<StrObj>()->s;
  }
  auto g = std::make_shared<GeneratorObj>();
  g->type_name = "Generator";
  g->attrs.emplace_back("device", make_str(device));
  reseed(*g, kDefaultSeed);
  g->methods["manual_seed"] = generator_manual_seed;
  g->methods["seed"] = generator_seed;
  g->methods["initial_seed"] = generator_initial_seed;
  g->methods["get_state"] = generator_get_state;
  g->methods["set_state"] = generator_set_state;
  GeneratorObj* raw = g.get();
  g->describe = [raw] { return "Generator(initial_seed=" + std::to_string(raw->seed) + ")"; };
  return Value::object(Tag::Object, g);
}

const BuiltinEntry kGeneratorBuiltins[] = {
    {"Generator", generator_builtin, "Generator(device=\"cpu\")",
     "A random stream of its own, as torch.Generator: g.manual_seed(n) seeds it (and returns it); rand, randn, "
     "randint, randperm, normal, bernoulli and the in-place fills (uniform_, normal_, ...) draw from it given "
     "generator=g, leaving the global generator alone (Note [A Generator is a saved state]). "
     "Example: let g = Generator().manual_seed(0); rand(3, generator=g)"},
};

}  // namespace

GeneratorScope::GeneratorScope(CallArgs& a, const char* who) {
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it) {
    if (it->first != "generator") continue;
    Value given = std::move(it->second);
    a.kw.erase(it);
    if (given.is_none()) return;  // generator=none: the global generator, as PyTorch's
    GeneratorObj* g = as_generator(given, std::string(who) + "()");
    held_ = std::move(given);  // the object lives until the draw is done
    notify_untraced_effect(std::string(who) + "(generator=...) draws from a Generator of its own");
    generator_ = g;
    saved_ = generator_state();
    set_generator_state(g->state);
    return;
  }
}

GeneratorScope::~GeneratorScope() {
  if (!generator_) return;
  static_cast<GeneratorObj*>(generator_)->state = generator_state();
  set_generator_state(saved_);
}

const BuiltinLibrary kGeneratorLibrary = {"generator", nullptr, kGeneratorBuiltins, nullptr};

}  // namespace nabla::interp
