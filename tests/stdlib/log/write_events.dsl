# Writes one of every summary into the log folder args[0], for read_back.py to check
# against what it computes from the same data (the tensors are saved beside the logs
# as data.safetensors; the scalars follow formulas read_back.py repeats).
#   nabla tests/stdlib/log/write_events.dsl LOGDIR
import log

let dir = args[0]
manual_seed(7)
let w = log.SummaryWriter(dir, filename_suffix=".main")

# Scalars: value 1 / (step + 3) at wall time 1000 + step; then non-finite ones, and
# a one-element tensor.
for step in range(5) { w.add_scalar("train/loss", 1 / (step + 3), global_step=step, walltime=1000 + step) }
w.add_scalar("edge/nan", float("nan"), global_step=1)
w.add_scalar("edge/inf", -float("inf"), global_step=2)
w.add_scalar("edge/tensor", tensor([0.1]), global_step=3)
w.add_scalars("run", {"train": 0.5, "test/a": 0.25}, global_step=4, walltime=2000.5)

let weights = randn(300) * 2
let counts = randint(0, 10, [50]).to(f32)
let image = rand(3, 5, 7)
let gray = rand(6, 4)
let grid = rand(10, 1, 3, 2)
let rgba = randint(0, 256, [2, 3, 4]).to(u8)
save({"weights": weights, "counts": counts, "image": image, "gray": gray, "grid": grid, "rgba": rgba.to(f32)},
     dir + "/data.safetensors")

w.add_histogram("hist/tensorflow", weights, global_step=5, walltime=3000)
w.add_histogram("hist/equal", counts, global_step=6, bins=7)
w.add_histogram("hist/edges", [0.5, 1.5, 1.5, 2.5, 9], global_step=7, bins=[0, 1, 2, 3])
w.add_histogram("hist/max_bins", weights, global_step=8, bins=30, max_bins=4)
w.add_image("image/chw", image, global_step=9)
w.add_image("image/hw", gray, global_step=10, dataformats="HW")
w.add_image("image/grid", grid, global_step=11, dataformats="NCHW")
w.add_image("image/rgba", rgba, global_step=12, dataformats="HWC")
w.add_text("notes", "lr **1e-3**, ünïcode", global_step=13)
w.add_hparams({"lr": 0.001, "layers": 3, "optimizer": "adam", "nesterov": true, "skipped": none},
              {"accuracy": 0.875, "loss": 0.25}, run_name="hp")
w.close()
