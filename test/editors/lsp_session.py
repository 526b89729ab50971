#!/usr/bin/env python3
"""Drives a real LSP session with torch-clangd over stdio.

  lsp_session.py --clangd build/bin/torch-clangd --mock-include DIR
                 --include DIR --out DIR

In a fresh project (a .clangd that lets clangd run torch-tidy's checks, and
a compile_commands.json), it:
  1. initializes, opens a file with the seed pattern inside a compiled region;
  2. waits for publishDiagnostics carrying torch-compile-requires-grad-
     propagation;
  3. requests codeAction over the diagnostic and gets the quick-fix, whose
     edit is the rule's rewrite;
  4. applies that edit (didChange) and waits for diagnostics without it;
  5. shuts down; clangd must exit 0.
Exit 0 when all steps pass, 1 otherwise.
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

# torch/version.h lands in clangd's precompiled preamble: the check reads
# TORCH_VERSION_MAJOR from it (LibTorchVersion: auto), which once crashed
# torch-clangd (preamble tokens have no literal data).
SOURCE = """#include <torch/version.h>
#include <torch/torch.h>
#include <torch_tidy/compiled.h>
using torch::indexing::Slice;

TORCH_TIDY_COMPILED at::Tensor skew(const at::Tensor &vec,
                                    const at::Tensor &rows,
                                    const at::Tensor &cols) {
  auto matrix = torch::zeros({2, 4, 4});
  matrix.index_put_({Slice(), rows, cols}, vec);
  return matrix;
}
"""
CHECK = "torch-compile-requires-grad-propagation"


class Client:
    def __init__(self, cmd, cwd, env):
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env,
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=open(os.path.join(cwd, "clangd.log"), "w"))
        self.messages = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.messages.put(json.loads(out.read(length)))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=60):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method,
                   "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m,
                         timeout, f"the response to {method}")

    def wait(self, pred, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                m = self.messages.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                break
            if m is None:
                raise RuntimeError(f"clangd exited while waiting for {what}")
            if "method" in m and "id" in m:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            if pred(m):
                return m
        raise RuntimeError(f"timed out after {timeout}s waiting for {what}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--clangd", required=True)
    p.add_argument("--mock-include", required=True, type=os.path.abspath)
    p.add_argument("--include", required=True, type=os.path.abspath, help="torch-tidy's include/")
    p.add_argument("--out", required=True)
    args = p.parse_args()

    project = os.path.abspath(args.out)
    os.makedirs(project, exist_ok=True)
    source = os.path.join(project, "skew.cpp")
    with open(source, "w") as f:
        f.write(SOURCE)
    # The config docs/editors.md documents.
    with open(os.path.join(project, ".clangd"), "w") as f:
        f.write("Diagnostics:\n  ClangTidy:\n    Add: [torch-*]\n"
                "    FastCheckFilter: None\n")
    with open(os.path.join(project, "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "file": source,
                    "arguments": ["clang++", "-std=c++17",
                                  "-isystem", args.mock_include,
                                  "-I", args.include, "-c", source]}], f)
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(project, "xdg"),
               HOME=project)
    uri = "file://" + source
    steps = []

    def step(ok, what):
        print(("PASS " if ok else "FAIL ") + what)
        steps.append(ok)
        if not ok:
            raise RuntimeError(what)

    c = Client([os.path.abspath(args.clangd), "--log=error", "--background-index=false",
                "--compile-commands-dir=" + project], project, env)
    code = 1
    try:
        init = c.request("initialize", {
            "processId": os.getpid(), "rootUri": "file://" + project,
            "capabilities": {"textDocument": {
                "publishDiagnostics": {"relatedInformation": True},
                "codeAction": {"codeActionLiteralSupport": {
                    "codeActionKind": {"valueSet": ["quickfix"]}}}}}})
        step("capabilities" in init.get("result", {}),
             "initialize answered")
        c.notify("initialized", {})
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": SOURCE}})

        def diagnostics_of(version_ok):
            return lambda m: (m.get("method") ==
                              "textDocument/publishDiagnostics" and
                              m["params"]["uri"] == uri and version_ok(m))

        msg = c.wait(lambda m: diagnostics_of(lambda _: True)(m) and any(
            d.get("code") == CHECK for d in m["params"]["diagnostics"]),
            120, f"publishDiagnostics with {CHECK}")
        diag = next(d for d in msg["params"]["diagnostics"]
                    if d.get("code") == CHECK)
        step(diag["range"]["start"]["line"] == 9 and
             "requires_grad" in diag["message"],
             f"publishDiagnostics carries {CHECK} on line 10: "
             f"{diag['message'][:80]!r}")

        actions = c.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"],
            "context": {"diagnostics": [diag]}})["result"] or []
        fixes = [a for a in actions if a.get("edit")]
        step(bool(fixes), f"codeAction returns a quick-fix "
             f"({[a.get('title') for a in actions]})")
        edits = fixes[0]["edit"].get("changes", {}).get(uri)
        if edits is None:  # documentChanges form
            edits = [e for dc in fixes[0]["edit"]["documentChanges"]
                     for e in dc["edits"]]
        step(len(edits) == 1 and
             edits[0]["newText"].startswith("matrix = matrix.index_put("),
             f"the fix is the rule's rewrite: {edits[0]['newText']!r}")

        # Apply the edit to the text and send it.
        lines = SOURCE.split("\n")
        r = edits[0]["range"]
        assert r["start"]["line"] == r["end"]["line"]
        line = lines[r["start"]["line"]]
        lines[r["start"]["line"]] = (line[:r["start"]["character"]] +
                                     edits[0]["newText"] +
                                     line[r["end"]["character"]:])
        fixed = "\n".join(lines)
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": fixed}]})
        msg = c.wait(lambda m: diagnostics_of(
            lambda m: m["params"].get("version") == 2)(m), 120,
            "publishDiagnostics for the edited file")
        left = [d for d in msg["params"]["diagnostics"]
                if d.get("code") == CHECK]
        step(not left, "after the edit the diagnostic is gone")

        resp = c.request("shutdown", None)
        step("error" not in resp, "shutdown answered")
        c.notify("exit", None)
        rc = c.proc.wait(timeout=30)
        step(rc == 0, f"clangd exited with status {rc}")
        code = 0
    except Exception as e:  # noqa: BLE001 - report and fail
        print("FAIL", e)
        if c.proc.poll() is None:
            c.proc.kill()
        log = os.path.join(project, "clangd.log")
        print(open(log).read()[-3000:])
    print(f"{sum(steps)} of {len(steps)} steps passed")
    return code


if __name__ == "__main__":
    sys.exit(main())
