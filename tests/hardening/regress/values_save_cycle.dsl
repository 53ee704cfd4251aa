# Issue 25 item 3: save() of a structure that holds itself is an error that says so
# and where, before any file is written.
# status: 1
# expect stderr: error: save(): the list contains itself (a reference cycle, at 'state.0.0')
let l = []
l.append([l])
let w = zeros([2])
save({"w": w, "state": l}, "/nonexistent-dir/never-written.safetensors")
