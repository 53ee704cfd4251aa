# Static int8 quantization of the Fashion-MNIST CNN (two conv + batch-norm + relu + pool
# blocks, a dense head; scripts/compress_common.dsl, the network prune_cnn.dsl prunes):
# trains it (or loads the checkpoint an earlier run with the same settings saved), then
# quantizes it with quant.quantize_static (batch norms folded into the convs, every
# Conv2d and Linear int8, each layer's input scale calibrated on a few training
# batches), once with the default HistogramObserver for inputs and once with
# MinMaxObserver, and compares the three models on the test set: bytes, accuracy, and
# milliseconds per batch of 64 eager and as a compiled graph (compile + the default
# passes), the models taking turns (medians; docs/quantization.md).
#   nabla scripts/quantize_cnn.dsl [epochs] [train_items] [calibration_batches] [checkpoint] [test_items]
# Defaults: 2 epochs, 60000 images, 10 batches of 64, the checkpoint in /tmp ("none":
# always train), the 10000 test images. Asserts that static int8 (HistogramObserver)
# stays within one accuracy point of f32; the last line is key=value pairs.
import quant
import "compress_common.dsl" as common

let epochs = int(args[0]) if len(args) > 0 else 2
let train_items = int(args[1]) if len(args) > 1 else 60000
let calibration_batches = int(args[2]) if len(args) > 2 else 10
let checkpoint = args[3] if len(args) > 3 else common.cnn_checkpoint(epochs, train_items)
let test_items = int(args[4]) if len(args) > 4 else 10000

manual_seed(0)
let (train, full_test) = common.load_data(train_items)
let test = full_test.subset(test_items)

let net = common.make_cnn()
if checkpoint == "none" {
  common.fit(net, train, epochs, desc="cnn")
} else {
  let (trained, seconds, loaded) = common.trained_cnn(train, epochs, checkpoint)
  net = trained
  print(f"cnn: {'loaded from' if loaded else 'trained ' + str(epochs) + ' epochs, saved to'} {checkpoint}")
}
net.eval()

let calibration = train.batches(64, shuffle=true, seed=1)[0:calibration_batches]
let histogram = quant.quantize_static(net, calibration)
let minmax = quant.quantize_static(net, calibration, qconfig=quant.minmax_qconfig)

# Each int8 layer's input scale under the two observers: the histogram's search clips
# the rare large activations that MinMax keeps, for a finer step on the rest.
print("input scales      histogram     minmax")
for (name, layer) in histogram.named_children() {
  if isinstance(layer, quant.QuantizedConv2d) or isinstance(layer, quant.QuantizedLinear) {
    let other = getattr(minmax, name)
    print(f"{type(layer) + ' ' + name:<18} {layer.input_scale:>9.5f} {other.input_scale:>10.5f}")
  }
}

let names = ["f32", "int8 histogram", "int8 minmax"]
let models = [net, histogram, minmax]
let acc = []
let bytes = []
for m in models {
  acc.append(common.accuracy(m, test))
  bytes.append(quant.model_size_bytes(m))
}
net.eval()
let times = common.speeds(models, test.x[0:64])

print(f"\n{'model':<15} {'bytes':>8} {'size':>6} {'accuracy':>9} {'ms/batch64':>11} {'speedup':>8} {'graph ms':>9} {'speedup':>8}")
for k in range(len(models)) {
  let t = times[k]
  print(f"{names[k]:<15} {bytes[k]:>8} {bytes[0] / bytes[k]:>5.2f}x {acc[k]:>9.4f} {t['eager']:>11.3f} {times[0]['eager'] / t['eager']:>7.2f}x {t['graph']:>9.3f} {times[0]['graph'] / t['graph']:>7.2f}x")
}
# The issue's target: static int8 within one accuracy point of f32.
assert(acc[1] >= acc[0] - 0.01, f"static int8 accuracy {acc[1]:.4f} is more than a point below f32's {acc[0]:.4f}")
print(f"quant_cnn_summary f32_accuracy={acc[0]:.4f} int8_accuracy={acc[1]:.4f} minmax_accuracy={acc[2]:.4f} " +
      f"f32_bytes={bytes[0]} int8_bytes={bytes[1]} f32_ms={times[0]['eager']:.3f} int8_ms={times[1]['eager']:.3f} " +
      f"f32_graph_ms={times[0]['graph']:.3f} int8_graph_ms={times[1]['graph']:.3f}")
