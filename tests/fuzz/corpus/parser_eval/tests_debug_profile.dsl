# The profiler from the language: profile { } blocks, last_profile(), tables, traces.
# Run by `nabla test tests/debug` (ctest debug_tests).
import nn

model Net() {
  fc1 = nn.Linear(8, 16)
  fc2 = nn.Linear(16, 4)
  forward(x) = fc2(relu(fc1(x)))
}

fn where_field(items, field, value) {
  let out = []
  for e in items { if e[field] == value { out.append(e) } }
  return out
}
fn count(items, field, value) = len(where_field(items, field, value))
fn names(items) {
  let out = []
  for e in items { out.append(e["name"]) }
  return out
}

test "a profile block records each op with its user line, forward and backward" {
  manual_seed(0)
  let m = Net()
  let x = randn([5, 8])
  profile(print=false) {
    let out = m(x)
    let loss = out.sum()
    loss.backward()
  }
  let p = last_profile()
  let events = p.events()
  let ops = where_field(events, "kind", "op")
  expect(count(ops, "name", "linear") == 2, "two linear calls")
  expect(count(ops, "name", "relu") == 1, "one relu")
  # Both layers run in the standard library; they count under the user's line.
  for e in ops {
    if e["name"] == "linear" {
      expect(e["line"] == "tests/debug/profile.dsl:8:16" or e["line"] == "tests/debug/profile.dsl:8:25", e["line"])
      expect(e["source"].startswith("<stdlib>/_nn_basic.dsl:"), e["source"])
    }
  }
  # The spans: the model call, each layer, the backward pass and the nodes' rules.
  let spans = names(where_field(events, "kind", "span"))
  expect("Net.forward" in spans, f"{spans}")
  expect("backward" in spans, f"{spans}")
  expect("LinearBackward" in spans, f"{spans}")
  # Grouped by line: fc1(x) in Net.forward has its forward and its backward time.
  let rows = p.rows(group="line")
  let fc1 = where_field(rows, "key", "tests/debug/profile.dsl:8:25")
  expect(len(fc1) == 1, f"{rows}")
  expect(fc1[0]["forward_us"] > 0 and fc1[0]["backward_us"] > 0, f"{fc1[0]}")
  expect(p.elapsed_us > 0, "elapsed")
}

test "tables sort by any column and the trace is Chrome's format" {
  let a = randn([16, 16])
  profile(print=false, trace="/tmp/nabla_profile_test_trace.json") {
    for i in range(3) { let b = a @ a }
    let c = a + a
  }
  let p = last_profile()
  let by_calls = p.rows(sort="calls")
  expect(by_calls[0]["key"] == "matmul" and by_calls[0]["calls"] == 3, f"{by_calls[0]}")
  # Each matmul's FLOPs are its row's cost rule: 2 * 16^3.
  expect(by_calls[0]["flops"] == 3 * 2 * 16 ** 3, f"{by_calls[0]}")
  let table = p.table(group="op", sort="calls", rows=1)
  expect(table.startswith("op "), table)
  expect("matmul" in table and "1 more rows" in table, table)
  # tests/autograd/profiler.cpp parses the JSON; here: the file is the whole trace.
  let trace = read_text("/tmp/nabla_profile_test_trace.json")
  expect(trace.startswith("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[{"), trace[0:60])
  expect(len(trace.split("\"name\":\"matmul\"")) == 4, "three matmul events")
  expect(len(trace.split("\"ph\":\"X\"")) == len(p.events()) + 1, "complete events only")
}

test "the fused Adam step, outside the op table, has its own row" {
  import optim
  let w = randn([10, 3], requires_grad=true)
  (w * w).sum().backward()
  let opt = optim.Adam([w], lr=0.1)
  profile(print=false) { opt.step() }
  let rows = where_field(last_profile().rows(), "key", "adam_step")
  expect(len(rows) == 1 and rows[0]["calls"] == 1, f"{last_profile().rows()}")
  # 16 FLOPs per element; p, g, m, v read and p, m, v written, 4 bytes each.
  expect(rows[0]["flops"] == 16 * 30 and rows[0]["bytes"] == 7 * 30 * 4, f"{rows[0]}")
}

test "profile options are checked" {
  expect_error("profile(sort=\"speed\") { let a = 1 }", "profile: cannot sort by \"speed\" (columns: name, calls, forward, backward, time, avg, flops, bytes)")
  expect_error("profile(group=\"file\") { let a = 1 }", "profile: group must be \"op\" or \"line\", got \"file\"")
  expect_error("profile(color=true) { let a = 1 }", "profile: unknown option 'color' (options: sort, group, rows, trace, print)")
  expect_error("profile(\"time\") { let a = 1 }", "profile takes keyword arguments only (sort, group, rows, trace, print)")
}

test "a failing block still leaves its profile" {
  expect_error("profile(print=false) { let a = randn([2, 3])\n let b = exp(a)\n let c = a @ a }", "matmul")
  let p = last_profile()
  expect(count(p.events(), "name", "exp") == 1, "the op before the error")
}
