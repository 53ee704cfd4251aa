# Text files for scripts: write_text, append_text, read_text and data.write_csv, whose
# files data.csv reads back (docs/LANGUAGE.md, "Files"). All write through the atomic
# writer, as save does.
import data
import time

let dir = "/tmp/nabla_text_files_test"

test "write_text replaces a file whole; read_text reads it back" {
  let p = dir + "_w.txt"
  write_text(p, "first\n")
  write_text(p, "second line\nthird\n")
  expect(read_text(p) == "second line\nthird\n", repr(read_text(p)))
  expect_error(fn() = read_text(p + ".tmp"), "cannot open")  # no temporary file left behind
}

test "append_text adds at the end, and makes a missing file" {
  let p = dir + "_a.txt"
  write_text(p, "")
  for epoch in range(3) { append_text(p, f"epoch {epoch}: {0.5 / (epoch + 1)}\n") }
  expect(read_text(p).split("\n") == ["epoch 0: 0.5", "epoch 1: 0.25", "epoch 2: 0.16666666666666666", ""], read_text(p))
  let fresh = dir + f"_new_{int(time.time() * 1000000)}.txt"
  expect_error(fn() = read_text(fresh), "cannot open")
  append_text(fresh, "made")
  expect(read_text(fresh) == "made")
}

test "write_text and append_text take a str, and say so" {
  expect_error(fn() = write_text(dir + "_x.txt", 3), "text must be a str, got int")
  expect_error(fn() = append_text(3, "x"), "path must be a str, got int")
  expect_error(fn() = write_text("/nonexistent_folder_for_nabla/x.txt", "x"), "cannot write")
}

test "data.write_csv round-trips a tensor through data.csv, every f64 digit kept" {
  let p = dir + "_t.csv"
  let x = randn(5, 3, dtype=f64)
  data.write_csv(p, x, header=["a", "b", "c"])
  let (back, names) = data.csv(p)
  expect(names == ["a", "b", "c"], f"{names}")
  expect(back.shape == (5, 3), f"{back.shape}")
  expect_close(back, x.float(), rtol=0, atol=0)
}

test "data.write_csv of lists: ints, floats, bools, and nan as an empty field" {
  let p = dir + "_l.csv"
  data.write_csv(p, [[1, 0.1], [2, float("nan")], [3, true]], header=["epoch", "loss"])
  expect(read_text(p) == "epoch,loss\n1,0.1\n2,\n3,1\n", repr(read_text(p)))
  let (t, names) = data.csv(p)
  expect(t[1, 1].item() != t[1, 1].item(), "nan reads back as nan")
  expect_close(t[:, 0], [1.0, 2.0, 3.0])
}

test "data.write_csv checks its rows and header before writing" {
  let p = dir + "_bad.csv"
  expect_error(fn() = data.write_csv(p, [[1, 2], [3]]), "rows[1] has 1 values, rows[0] has 2")
  expect_error(fn() = data.write_csv(p, [[1, "x"]]), "rows[0] holds a str")
  expect_error(fn() = data.write_csv(p, ones(2, 2, 2)), "2-D tensor")
  expect_error(fn() = data.write_csv(p, [[1, 2]], header=["a"]), "header has 1 names, the rows have 2 columns")
  expect_error(fn() = data.write_csv(p, [[1]], header=["a,b"]), "holds ','")
  expect_error(fn() = data.write_csv(p, 3), "rows must be a 2-D tensor or a list of rows, got int")
}
