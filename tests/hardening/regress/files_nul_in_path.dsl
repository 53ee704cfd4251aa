# A path holding a NUL byte was cut there by the system's calls: save(obj, "w\0x")
# wrote a file named "w", load("w\0junk") read "w", write_text, save_image, plot's
# path, import and the log folder likewise, silently (Python refuses them as
# "embedded null byte"). Each is now an error naming the byte (Note [A NUL byte in a
# path] in tensor/file_kind.hpp), and no file is written.
import data
# expect: saved: false
# expect: written: false
# expect: exists: false
let dir = env("REGRESS_TMP")
expect_error(fn() = save({"w": ones(2)}, dir + "/w\0x.safetensors"), "the path holds a NUL byte (\\0) at byte")
print(f"saved: {data.file_exists(dir + "/w")}")
expect_error(fn() = write_text(dir + "/t\0x", "text"), "the path holds a NUL byte")
print(f"written: {data.file_exists(dir + "/t")}")
save({"w": ones(2)}, dir + "/w.safetensors")
expect_error(fn() = load(dir + "/w.safetensors\0junk"), "cannot load '" + dir + "/w.safetensors\\0junk'")
expect_error(fn() = read_text(dir + "/w.safetensors\0junk"), "the path holds a NUL byte")
print(f"exists: {data.file_exists(dir + "/w.safetensors\0junk")}")
