"""What the Jupyter kernel's tests share: the kernelspec that `nabla jupyter install
--prefix` writes, found through a temporary JUPYTER_PATH, and running one cell with
jupyter_client. Each test script takes the nabla binary as its first argument."""
import os
import queue
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
    done = subprocess.run([nabla, "jupyter", "install", "--prefix", prefix], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("nabla jupyter install failed: " + done.stderr)
    os.environ["JUPYTER_PATH"] = os.path.join(prefix, "share", "jupyter")
    return nabla, prefix


def run_cell(kc, code, timeout=TIMEOUT):
    """Executes code; returns (the execute_reply's content, the cell's iopub messages
    between busy and idle, as (msg_type, content) pairs)."""
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    outputs = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status":
            if msg["content"]["execution_state"] == "idle":
                return reply["content"], outputs
            continue
        if msg["msg_type"] != "execute_input":
            outputs.append((msg["msg_type"], msg["content"]))


def drain(channel_get, seconds=0.5):
    """Every message that arrives on a channel within `seconds`."""
    messages = []
    while True:
        try:
            messages.append(channel_get(timeout=seconds))
        except queue.Empty:
            return messages
