# Exports the models that tests/onnx/check_models.sh checks against ONNX Runtime: the
# MLP, the CNN with BatchNorm (folded by the default passes), the character
# transformer of scripts/char_model.dsl and the int8 CNN (quant.quantize_static), each
# as OUT/<name>.onnx, with its inputs and nabla's outputs beside it (export_case.dsl).
#   nabla tests/onnx/export_models.dsl OUT
import nn
import quant
import "../../scripts/compress_common.dsl" as common
import "../../scripts/char_model.dsl" as char_model
import "export_case.dsl" as cases

let out = args[0]
manual_seed(0)

fn export_case(name, net, inputs) {
  net.eval()
  cases.export_case(out, name, net, inputs)
}

# Running statistics that are not the initial 0 and 1, so that folding them matters.
fn settle_batch_norms(net) {
  net.train()
  no_grad {
    for i in range(3) { net(randn([16, 1, 28, 28]) * 1.5 + 0.3) }
  }
  net.eval()
}

let mlp = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
export_case("mlp", mlp, [randn([8, 784])])

let cnn = common.make_cnn()
settle_batch_norms(cnn)
let images = randn([8, 1, 28, 28])
export_case("cnn_bn", cnn, [images])

let transformer = char_model.CharTransformer(80, 96, 4, 64)
export_case("char_transformer", transformer, [randint(0, 80, [2, 64])])

let calibration = [randn([32, 1, 28, 28]), randn([32, 1, 28, 28])]
let int8_cnn = quant.quantize_static(cnn, calibration)
export_case("int8_cnn", int8_cnn, [images])
