"""What the Jupyter kernel's tests share: the kernelspec that `nabla jupyter install
--prefix` writes, found through a temporary JUPYTER_PATH, and running one cell with
jupyter_client. Each test script takes the nabla binary as its first argument."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 60


def install_kernelspec_from_argv():
    """Takes the nabla binary from sys.argv (leaving the rest to unittest), installs
    its kernelspec into a temporary prefix and points JUPYTER_PATH at it."""
    if len(sys.argv) < 2:
        sys.exit("usage: %s NABLA_BINARY [unittest options]" % sys.argv[0])
    nabla = os.path.abspath(sys.argv.pop(1))
    prefix = tempfile.mkdtemp(prefix="nabla-jupyter-")
    atexit.register(shutil.rmtree, prefix, True)
    done = subprocess.run([nabla, "jupyter", "install", "--prefix", prefix], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("nabla jupyter install failed: " + done.stderr)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    return nabla, prefix


def run_cell(kc, code, timeout=TIMEOUT):
    """Executes code; returns (the execute_reply's content, the cell's iopub messages
    between busy and idle, as (msg_type, content) pairs)."""
    msg_id = kc.execute(code)
    return reply_to(kc, msg_id, timeout)["content"], outputs_of(kc, msg_id, timeout)


def reply_to(kc, msg_id, timeout=TIMEOUT):
    """The shell reply to the request msg_id."""
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply


def outputs_of(kc, msg_id, timeout=TIMEOUT):
    """The iopub messages of request msg_id up to its idle status. The next request
    must wait for it: after a failed cell xeus drops (aborts) the execute requests
    that reach it before then, as the protocol's stop_on_error asks."""
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status":
            if msg["content"]["execution_state"] == "idle":
                return outputs
            continue
        if msg["msg_type"] != "execute_input":
            outputs.append((msg["msg_type"], msg["content"]))
