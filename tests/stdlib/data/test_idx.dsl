# IDX and CSV readers of the data module on the fixtures of tests/data
# (tests/data/make_fixtures.py writes them). Paths are relative to the source root,
# where ctest runs `nabla test tests/stdlib/data`.
import data
let dir = "tests/data"

test "read_idx: u8 images and labels, plain" {
  let x = data.read_idx(f"{dir}/tiny-images-idx3-ubyte")
  expect(x.shape == (3, 2, 2))
  expect(x.dtype == i64)
  expect(x.tolist() == [[[0, 51], [102, 255]], [[1, 2], [3, 4]], [[250, 251], [252, 253]]])
  let y = data.read_idx(f"{dir}/tiny-labels-idx1-ubyte")
  expect(y.dtype == i64)
  expect(y.tolist() == [7, 0, 9])
}

test "read_idx: gzipped files read the same as plain ones" {
  expect(data.read_idx(f"{dir}/tiny-images-idx3-ubyte.gz").tolist() == data.read_idx(f"{dir}/tiny-images-idx3-ubyte").tolist())
  expect(data.read_idx(f"{dir}/tiny-labels-idx1-ubyte.gz").tolist() == [7, 0, 9])
}

test "read_idx: scale=true gives f32 in [0, 1]" {
  let x = data.read_idx(f"{dir}/tiny-images-idx3-ubyte.gz", scale=true)
  expect(x.dtype == f32)
  expect_close(x[0], tensor([[0.0, 0.2], [0.4, 1.0]]))
  expect(x.min().item() >= 0.0 and x.max().item() <= 1.0)
}

test "read_idx: i32, f32 and f64 types (big-endian)" {
  expect(data.read_idx(f"{dir}/tiny-i32.idx").tolist() == [[-5, 70000], [3, -2147483648]])
  let f = data.read_idx(f"{dir}/tiny-f32.idx")
  expect(f.dtype == f32)
  expect(f.tolist() == [1.5, -2.25, 1e10])
  let d = data.read_idx(f"{dir}/tiny-f64.idx")
  expect(d.dtype == f64)
  expect(d.tolist() == [0.1, -3.0])
}

test "read_idx: a missing file names the path" {
  expect_error("data.read_idx(\"tests/data/nope.idx\")", "read_idx(): cannot open tests/data/nope.idx: No such file or directory")
  expect_error("data.read_idx(\"/usr/share/datasets/fashion-mnist/nope-idx3-ubyte.gz\")",
               "cannot open /usr/share/datasets/fashion-mnist/nope-idx3-ubyte.gz: No such file or directory (install the Debian package dataset-fashion-mnist)")
}

test "read_idx: truncated and corrupt files say what was expected" {
  expect_error("data.read_idx(\"tests/data/truncated-data.idx\")",
               "tests/data/truncated-data.idx is truncated: expected 12 bytes of data for shape [3, 2, 2], found 9")
  expect_error("data.read_idx(\"tests/data/truncated-header.idx\")",
               "is truncated: expected 3 dimension sizes (12 bytes) after the magic number, found 2 bytes")
  expect_error("data.read_idx(\"tests/data/truncated.gz\")", "tests/data/truncated.gz is truncated: expected 12 bytes of data for shape [3, 2, 2]")
  expect_error("data.read_idx(\"tests/data/bad-magic.idx\")", "is not an IDX file: the magic number starts with 0x1F 0x00, expected 0x00 0x00")
  expect_error("data.read_idx(\"tests/data/bad-type.idx\")", "has an unknown IDX type code 0x07")
  expect_error("data.read_idx(\"tests/data/trailing.idx\")", "has bytes after the 3 bytes of data for shape [3]")
  expect_error("data.read_idx(\"tests/data/tiny.csv\")", "is not an IDX file")
  expect_error("data.read_idx(\"tests/data\")", "read_idx(): cannot open tests/data: it is a folder, not a regular file")
}

test "read_csv: header, numbers, blank lines" {
  let (t, cols) = data.read_csv(f"{dir}/tiny.csv")
  expect(cols == ["x", "y", "label"])
  expect(t.shape == (3, 3))
  expect(t.dtype == f32)
  expect_close(t, tensor([[1.5, 2.0, 0.0], [-3.0, 0.4, 1.0], [5.0, 6.0, 1.0]]))
  let (u, names) = data.csv(f"{dir}/noheader.csv", header=false)
  expect(names == ["c0", "c1"])
  expect(u.tolist() == [[1.0, 2.0], [3.0, 4.0]])
}

test "read_csv: errors name the line and the column" {
  expect_error("data.read_csv(\"tests/data/bad.csv\")", "tests/data/bad.csv:3: column 2 ('b') is not a number: 'oops'")
  expect_error("data.read_csv(\"tests/data/ragged.csv\")", "tests/data/ragged.csv:3: expected 2 fields, found 1")
  expect_error("data.read_csv(\"tests/data/none.csv\")", "read_csv(): cannot open tests/data/none.csv: No such file or directory")
}
