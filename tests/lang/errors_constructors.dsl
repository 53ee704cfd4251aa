# The standard library's constructors and transforms that take a structure (a list
# of layers, a dataset, a model, a config) check it when called, not when it is used:
# each error names the function, the argument and what was found. (optim's are in
# errors_optim.dsl.)

# case: nn.Sequential given a dict of named layers with a number among them
# expect error: tests/lang/errors_constructors.dsl:10:11: error: nn.Sequential(): layers['act'] must be a layer (a model instance), got int
# expect error line:   at tests/lang/errors_constructors.dsl:10:11 in <module>
import nn
let net = nn.Sequential({"fc": nn.Linear(2, 2), "act": 3})
# ---
# case: nn.Sequential given a model class
# expect error: tests/lang/errors_constructors.dsl:16:11: error: nn.Sequential(): layers[1] is the model class ReLU, not a layer (construct it: ReLU(...))
# expect error line:   at tests/lang/errors_constructors.dsl:16:11 in <module>
import nn
let net = nn.Sequential([nn.Linear(2, 2), nn.ReLU])
# ---
# case: nn.Sequential given a number among the layers (it was skipped silently)
# expect error: tests/lang/errors_constructors.dsl:22:11: error: nn.Sequential(): layers[1] must be a layer (a model instance), got int
# expect error line:   at tests/lang/errors_constructors.dsl:22:11 in <module>
import nn
let net = nn.Sequential([nn.Linear(2, 2), 3])
# ---
# case: Sequential.append given a str
# expect error: tests/lang/errors_constructors.dsl:29:1: error: nn.Sequential.append(): layer must be a layer (a model instance), got str
# expect error line:   at tests/lang/errors_constructors.dsl:29:1 in <module>
import nn
let net = nn.Sequential([nn.Linear(2, 2)])
net.append("relu")
# ---
# case: nn.Sequential given a function (it was skipped silently)
# expect error: tests/lang/errors_constructors.dsl:35:11: error: nn.Sequential(): layers[1] must be a layer (a model instance), got builtin (a function is not a layer: use its layer, nn.ReLU() for relu, or a model of your own)
# expect error line:   at tests/lang/errors_constructors.dsl:35:11 in <module>
import nn
let net = nn.Sequential([nn.Linear(2, 2), relu])
# ---
# case: data.TensorDataset given a list
# expect error: tests/lang/errors_constructors.dsl:41:10: error: data.TensorDataset(): x must be a tensor (its items along dim 0), got list
# expect error line:   at tests/lang/errors_constructors.dsl:41:10 in <module>
import data
let ds = data.TensorDataset([1.0, 2.0, 3.0])
# ---
# case: data.TensorDataset given labels as a list
# expect error: tests/lang/errors_constructors.dsl:47:10: error: data.TensorDataset(): y must be a tensor (its items along dim 0), got list
# expect error line:   at tests/lang/errors_constructors.dsl:47:10 in <module>
import data
let ds = data.TensorDataset(ones([3, 2]), [0, 1, 2])
# ---
# case: data.TensorDataset with fewer labels than items
# expect error: tests/lang/errors_constructors.dsl:53:10: error: data.TensorDataset(): x has 3 items but y has 2
# expect error line:   at tests/lang/errors_constructors.dsl:53:10 in <module>
import data
let ds = data.TensorDataset(ones([3, 2]), arange(2))
# ---
# case: dist.DistributedDataParallel given a list of layers
# expect error: tests/lang/errors_constructors.dsl:60:11: error: dist.DistributedDataParallel(): the module must be a model instance, got list
# expect error line:   at tests/lang/errors_constructors.dsl:60:11 in <module>
import nn
import dist
let ddp = dist.DistributedDataParallel([nn.Linear(2, 2)])
# ---
# case: dist.DistributedSampler given a tensor
# expect error: tests/lang/errors_constructors.dsl:66:9: error: dist.DistributedSampler(): dataset must be a data.TensorDataset (its x and y are sharded), got tensor
# expect error line:   at tests/lang/errors_constructors.dsl:66:9 in <module>
import dist
let s = dist.DistributedSampler(ones([8, 2]), num_replicas=2, rank=0)
# ---
# case: dist.ZeroRedundancyOptimizer given an optimizer, not a function making one
# expect error: tests/lang/errors_constructors.dsl:75:9: error: dist.ZeroRedundancyOptimizer(): make_optimizer must be a function of the parameter list (fn(ps) = optim.Adam(ps)), got Adam
# expect error line:   at tests/lang/errors_constructors.dsl:75:9 in <module>
import nn
import dist
import optim
let m = nn.Linear(2, 2)
let z = dist.ZeroRedundancyOptimizer(m.parameters(), optim.Adam(m.parameters()))
# ---
# case: dist.Pipeline with zero chunks
# expect error: tests/lang/errors_constructors.dsl:82:9: error: dist.Pipeline(): chunks must be an int > 0, got 0
# expect error line:   at tests/lang/errors_constructors.dsl:82:9 in <module>
import nn
import dist
let p = dist.Pipeline(nn.Linear(2, 2), 0, [fn(n) = [n, 2]])
# ---
# case: prune given the weight tensor instead of the layer
# expect error: tests/lang/errors_constructors.dsl:90:1: error: prune: module must be a layer (a model instance), got tensor (pass the layer and the name: prune.l1_unstructured(layer, "weight"))
# expect error line:   at tests/lang/errors_constructors.dsl:90:1 in <module>
import nn
import prune
let m = nn.Linear(4, 4)
prune.l1_unstructured(m.weight, amount=0.5)
# ---
# case: prune.global_unstructured given tensors instead of (module, name) pairs
# expect error: tests/lang/errors_constructors.dsl:98:1: error: prune.global_unstructured(): parameters[0] must be a (module, name) pair such as (model.fc1, "weight"), got tensor
# expect error line:   at tests/lang/errors_constructors.dsl:98:1 in <module>
import nn
import prune
let m = nn.Linear(4, 4)
prune.global_unstructured([m.weight], amount=0.5)
# ---
# case: prune.global_unstructured given a pair whose name is not a str
# expect error: tests/lang/errors_constructors.dsl:106:1: error: prune.global_unstructured(): parameters[0]: name must be a str (the parameter's name, "weight"), got int
# expect error line:   at tests/lang/errors_constructors.dsl:106:1 in <module>
import nn
import prune
let m = nn.Linear(4, 4)
prune.global_unstructured([(m, 0)], amount=0.5)
# ---
# case: quant.QConfig given an observer instead of a function making one
# expect error: tests/lang/errors_constructors.dsl:112:10: error: quant.QConfig(): activation must be a function that makes an observer, got MinMaxObserver (an observer: pass a function making one, fn() = ...)
# expect error line:   at tests/lang/errors_constructors.dsl:112:10 in <module>
import quant
let qc = quant.QConfig(quant.MinMaxObserver(), quant.default_weight_observer)
# ---
# case: quant.prepare given a qconfig name
# expect error: tests/lang/errors_constructors.dsl:119:9: error: quant.prepare(): qconfig must be a quant.QConfig, got str
# expect error line:   at tests/lang/errors_constructors.dsl:119:9 in <module>
import nn
import quant
let p = quant.prepare(nn.Sequential([nn.Linear(2, 2)]), qconfig="fbgemm")
# ---
# case: quant.quantize_dynamic given a list of layers
# expect error: tests/lang/errors_constructors.dsl:126:9: error: quant.quantize_dynamic(): model must be a model instance, got list
# expect error line:   at tests/lang/errors_constructors.dsl:126:9 in <module>
import nn
import quant
let q = quant.quantize_dynamic([nn.Linear(2, 2)])
# ---
# case: quant.calibrate given one tensor
# expect error: tests/lang/errors_constructors.dsl:134:1: error: quant.calibrate(): batches must be a list of batches, got one tensor (wrap it: [x])
# expect error line:   at tests/lang/errors_constructors.dsl:134:1 in <module>
import nn
import quant
let p = quant.prepare(nn.Sequential([nn.Linear(2, 2)]))
quant.calibrate(p, ones([4, 2]))
# ---
# case: nn.EmbeddingBag given a mode it does not have
# expect error: tests/lang/errors_constructors.dsl:140:11: error: assertion failed: EmbeddingBag: mode must be "sum", "mean" or "max", got 'median'
# expect error line:   at tests/lang/errors_constructors.dsl:140:11 in <module>
import nn
let bag = nn.EmbeddingBag(10, 3, mode="median")
# ---
# case: nn.Embedding with sparse= not a bool
# expect error: tests/lang/errors_constructors.dsl:146:9: error: assertion failed: Embedding: sparse must be true or false, got int
# expect error line:   at tests/lang/errors_constructors.dsl:146:9 in <module>
import nn
let e = nn.Embedding(10, 3, sparse=1)
# ---
# case: nn.EmbeddingBag called with per_sample_weights in mode "mean"
# expect error: tests/lang/errors_constructors.dsl:153:9: error: assertion failed: embedding_bag(): per_sample_weights is only supported for mode "sum", got mode 'mean'
# expect error line:   at tests/lang/errors_constructors.dsl:153:9 in <module>
import nn
let bag = nn.EmbeddingBag(10, 3)
let y = bag(tensor([1, 2, 3]), tensor([0, 2]), per_sample_weights=ones([3]))
# ---
# case: nn.EmbeddingBag called with offsets that do not start at 0
# expect error: tests/lang/errors_constructors.dsl:160:9: error: assertion failed: embedding_bag(): offsets[0] must be 0 (the first bag starts the input), got 1
# expect error line:   at tests/lang/errors_constructors.dsl:160:9 in <module>
import nn
let bag = nn.EmbeddingBag(10, 3)
let y = bag(tensor([1, 2, 3]), tensor([1, 2]))
# ---
# case: nn.Bilinear given inputs of the wrong widths
# expect error: tests/lang/errors_constructors.dsl:167:9: error: assertion failed: bilinear(): input2 has 4 features (its last dim), the weight [5, 2, 3] expects 3
# expect error line:   at tests/lang/errors_constructors.dsl:167:9 in <module>
import nn
let b = nn.Bilinear(2, 3, 5)
let y = b(randn([4, 2]), randn([4, 4]))
# ---
# case: nn.ChannelShuffle with channels not divisible by groups
# expect error: tests/lang/errors_constructors.dsl:173:9: error: assertion failed: channel_shuffle(): the 6 channels must be divisible by groups (4)
# expect error line:   at tests/lang/errors_constructors.dsl:173:9 in <module>
import nn
let y = nn.ChannelShuffle(4)(randn([1, 6, 2, 2]))
# ---
# case: nn.AlphaDropout with p outside [0, 1]
# expect error: tests/lang/errors_constructors.dsl:179:9: error: assertion failed: AlphaDropout: p must be in [0, 1], got 1.5
# expect error line:   at tests/lang/errors_constructors.dsl:179:9 in <module>
import nn
let d = nn.AlphaDropout(1.5)
# ---
# case: nn.Softmax2d given a 2-d input
# expect error: tests/lang/errors_constructors.dsl:185:9: error: assertion failed: Softmax2d: expected a 3-d or 4-d input [N, C, H, W], got shape [2, 3]
# expect error line:   at tests/lang/errors_constructors.dsl:185:9 in <module>
import nn
let y = nn.Softmax2d()(randn([2, 3]))
