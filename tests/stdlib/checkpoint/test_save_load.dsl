# save(obj, path) and load(path): safetensors checkpoints (ctest: stdlib_checkpoint_tests).
# Files go to /tmp under names of their own.

test "a dict of tensors round-trips with names, values and dtypes" {
  let path = "/tmp/nabla_checkpoint_tensors.safetensors"
  let w = tensor([[1.0, 2.0], [3.0, 4.0]])
  save({"fc.weight": w, "fc.bias": tensor([1, 2, 3]), "mask": tensor([true, false]),
        "h": tensor([0.5, 1.5], dtype=f16), "d": tensor(2.5, dtype=f64)}, path)
  let d = load(path)
  expect(len(d) == 5)
  expect(list(d) == ["fc.weight", "fc.bias", "mask", "h", "d"])
  expect(d["fc.weight"].tolist() == [[1.0, 2.0], [3.0, 4.0]])
  expect(d["fc.weight"].dtype == f32)
  expect(d["fc.bias"].tolist() == [1, 2, 3])
  expect(d["fc.bias"].dtype == i64)
  expect(d["mask"].tolist() == [true, false])
  expect(d["h"].dtype == f16)
  expect(d["h"].tolist() == [0.5, 1.5])
  expect(d["d"].ndim == 0)
  expect(d["d"].item() == 2.5)
}

test "numbers, strings and nested dicts of an optimizer's state round-trip" {
  let path = "/tmp/nabla_checkpoint_nested.safetensors"
  let state = {
    "model": {"w": tensor([1.0, 2.0]), "b": tensor([0.0])},
    "optimizer": {"step": 10, "lr": 0.001, "name": "adam", "betas": (0.9, 0.999),
                  "state": {0: {"exp_avg": tensor([0.5, 0.25]), "step": 10}},
                  "flags": [true, false, none], "nan": float("nan"), "inf": float("-inf")},
    "epoch": 3,
  }
  save(state, path)
  let s = load(path)
  expect(list(s) == ["model", "optimizer", "epoch"])
  expect(s["epoch"] == 3)
  expect(s["model"]["w"].tolist() == [1.0, 2.0])
  let o = s["optimizer"]
  expect(o["step"] == 10)
  expect(type(o["step"]) == "int")
  expect(o["lr"] == 0.001)
  expect(o["name"] == "adam")
  expect(o["betas"] == (0.9, 0.999))
  expect(o["flags"] == [true, false, none])
  expect(o["nan"] != o["nan"])
  expect(o["inf"] == float("-inf"))
  expect(o["state"][0]["exp_avg"].tolist() == [0.5, 0.25])
  expect(o["state"][0]["step"] == 10)
}

test "load(path, into=state) copies in place and reports every mismatch" {
  let path = "/tmp/nabla_checkpoint_into.safetensors"
  save({"w": tensor([1.0, 2.0, 3.0]), "b": tensor([4.0])}, path)
  let w = zeros(3)
  let b = zeros(1)
  load(path, into={"w": w, "b": b})
  expect(w.tolist() == [1.0, 2.0, 3.0])
  expect(b.tolist() == [4.0])
  expect_error("load('/tmp/nabla_checkpoint_into.safetensors', into={'w': zeros(2), 'c': zeros(1, dtype=f64)})",
               "does not match the state (3 problems):\n  wrong shape: 'w' is [3] in the file, [2] in the state\n  missing: 'c' ([1] f64)\n  unexpected: 'b' ([1] f32)")
}

model Linear1() {
  w = tensor([1.0, -1.0], requires_grad=true)
  state_dict() = {"w": self.w}
}

test "a value with a state_dict() method is saved through it" {
  let path = "/tmp/nabla_checkpoint_model.safetensors"
  let m = Linear1()
  save(m, path)
  expect(load(path)["w"].tolist() == [1.0, -1.0])
  let m2 = Linear1()
  no_grad { m2.w.zero_() }
  load(path, into=m2)
  expect(m2.w.tolist() == [1.0, -1.0])
}

test "metadata of your own is stored as strings and read by load_metadata" {
  let path = "/tmp/nabla_checkpoint_meta.safetensors"
  save({"w": tensor([1.0]), "step": 4}, path, metadata={"format": "pt", "run": "a1"})
  expect(load_metadata(path) == {"format": "pt", "run": "a1"})
  expect(load(path)["step"] == 4)
}

test "errors name the problem" {
  expect_error("save({'f': print}, '/tmp/nabla_checkpoint_err.safetensors')", "cannot store a")
  expect_error("save(3, '/tmp/nabla_checkpoint_err.safetensors')", "save(): expected a dict")
  expect_error("load('/tmp/nabla_checkpoint_no_such_file.safetensors')", "cannot load '/tmp/nabla_checkpoint_no_such_file.safetensors': No such file or directory")
  expect_error("save({'a': tensor(1.0)}, '/tmp/nabla_checkpoint_err.safetensors', metadata={'nabla.values': 'x'})", "'nabla.values' is reserved")
}
