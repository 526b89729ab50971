#!/usr/bin/env python3
"""The GitHub Action and the pre-commit hooks' files, validated (issue 61).

  * action.yml against SchemaStore's github-action schema and the example
    workflow (tools/action/example-workflow.yml) against its github-workflow
    schema (check-jsonschema's bundled copies: no network);
  * both linted by zizmor (--offline, tools/action/zizmor.yml): third-party
    actions pinned to a commit, no template injection into run: scripts;
  * .pre-commit-hooks.yaml by pre-commit's own validate-manifest;
  * the action's interface is the one docs/ci.md documents: every input and
    output is named there, and its workflow is the example's;
  * torch-tidy is not on PyPI (the name there is not ours): the action's
    package input is required (the example gives a wheel), its install step
    stops on an empty one, and no doc or manifest says `pip install
    torch-tidy` by name;
  * the validators can fail: a copy of action.yml without `runs` is refused,
    and one that puts an input straight into a run: script is flagged.

Exit 77 (a SKIPPED line) without the tools venv's check-jsonschema, zizmor
and pre-commit.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import_yaml_error = None
try:
    import yaml
except ImportError as e:  # the tools venv has PyYAML (pre-commit needs it)
    import_yaml_error = e


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source-dir", required=True)
    p.add_argument("--tools-bin", default="")
    args = p.parse_args()
    src = args.source_dir
    tools = {t: os.path.join(args.tools_bin, t)
             for t in ("check-jsonschema", "zizmor", "pre-commit")}
    missing = [t for t, path in tools.items() if not os.path.exists(path)]
    if not args.tools_bin or missing or import_yaml_error:
        print(f"SKIPPED action-lint: no {', '.join(missing) or 'PyYAML'} in "
              f"the tools venv ({args.tools_bin or 'not set'}); run make "
              f"bootstrap with PyPI reachable")
        return 77
    action = os.path.join(src, "action.yml")
    workflow = os.path.join(src, "tools", "action", "example-workflow.yml")
    zconfig = os.path.join(src, "tools", "action", "zizmor.yml")
    failures = []

    def expect(name, ok, out=""):
        print(("PASS " if ok else "FAIL ") + name)
        if not ok:
            failures.append(name)
            print("  " + out[-3000:].replace("\n", "\n  "))

    cj = tools["check-jsonschema"]
    rc, out = run([cj, "--builtin-schema", "vendor.github-actions", action])
    expect("action.yml is a valid action (SchemaStore github-action)", rc == 0, out)
    rc, out = run([cj, "--builtin-schema", "vendor.github-workflows", workflow])
    expect("the example workflow is valid (SchemaStore github-workflow)", rc == 0, out)
    zz = [tools["zizmor"], "--offline", "--no-progress", "--config", zconfig]
    rc, out = run(zz + [action, workflow])
    expect("zizmor finds nothing in action.yml and the example workflow",
           rc == 0 and "No findings" in out, out)
    rc, out = run([tools["pre-commit"], "validate-manifest",
                   os.path.join(src, ".pre-commit-hooks.yaml")])
    expect(".pre-commit-hooks.yaml is a valid manifest (pre-commit)", rc == 0, out)

    doc = yaml.safe_load(open(action))
    ci = open(os.path.join(src, "docs", "ci.md")).read()
    names = list(doc["inputs"]) + list(doc["outputs"])
    undocumented = [n for n in names if f"`{n}`" not in ci]
    expect(f"docs/ci.md names every input and output of the action "
           f"({len(names)})", not undocumented, f"not in docs/ci.md: {undocumented}")
    block = re.search(r"## GitHub Actions.*?```yaml\n(.*?)```", ci, re.S)
    expect("docs/ci.md's workflow is the example workflow",
           block and yaml.safe_load(block.group(1)) == yaml.safe_load(open(workflow)),
           "the yaml block under '## GitHub Actions' differs from "
           "tools/action/example-workflow.yml")
    used = re.findall(r"uses: ([^\s]+)", open(workflow).read())
    expect("the example workflow uses this action",
           any(u.startswith("torch-tidy/torch-tidy@") for u in used), str(used))

    # torch-tidy is not on PyPI and the name there is not ours: nothing may
    # install it by name from an index, and the action has no default.
    package = doc["inputs"]["package"]
    expect("the action's package input is required, with no default",
           package.get("required") is True and "default" not in package,
           str(package))
    steps = [s for j in yaml.safe_load(open(workflow))["jobs"].values()
             for s in j["steps"]]
    ours = [s for s in steps
            if s.get("uses", "").startswith("torch-tidy/torch-tidy@")]
    expect("the example workflow gives the action a wheel (package)",
           ours and str(ours[0].get("with", {}).get("package", "")).endswith(".whl"),
           str(ours))
    by_name = re.compile(r"pip install (?:-\S+ )*['\"]?torch-tidy(?:[=<>~!\s'\"`]|$)",
                         re.M)
    texts = [os.path.join(src, f) for f in
             ("README.md", "action.yml", ".pre-commit-hooks.yaml",
              "pyproject.toml", os.path.join("tools", "wheel", "DESCRIPTION.md"),
              os.path.join("tools", "action", "example-workflow.yml"))]
    docs_dir = os.path.join(src, "docs")
    texts += [os.path.join(docs_dir, f) for f in sorted(os.listdir(docs_dir))
              if f.endswith(".md")]
    named = [f"{os.path.relpath(t, src)}: {m.group(0)!r}" for t in texts
             for m in by_name.finditer(open(t).read())]
    expect(f"no file tells a user to pip install torch-tidy by name from an "
           f"index ({len(texts)} files read)", not named, "\n".join(named))
    expect("the by-name probe matches the form it forbids",
           bool(by_name.search("pip install torch-tidy\n"))
           and bool(by_name.search("run: pip install --quiet torch-tidy==0.1.0"))
           and not by_name.search("pip install dist/torch_tidy-0.1.0.whl"))
    install = doc["runs"]["steps"][0]["run"]
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run(["bash", "-e", "-c", install], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=dict(os.environ, TT_PACKAGE="", RUNNER_TEMP=tmp))
        expect("the action's install step stops on an empty package, saying so",
               p.returncode == 2 and "not on PyPI" in p.stdout
               and not os.path.exists(os.path.join(tmp, "torch-tidy")),
               f"exit {p.returncode}: {p.stdout}")

    with tempfile.TemporaryDirectory() as tmp:
        broken = dict(doc)
        del broken["runs"]
        bad = os.path.join(tmp, "action.yml")
        with open(bad, "w") as f:
            yaml.safe_dump(broken, f)
        rc, out = run([cj, "--builtin-schema", "vendor.github-actions", bad])
        expect("the schema check refuses an action without runs", rc != 0, out)
        injected = open(action).read().replace(
            '"$RUNNER_TEMP/torch-tidy/bin/pip" install --quiet "$TT_PACKAGE"',
            '"$RUNNER_TEMP/torch-tidy/bin/pip" install --quiet ${{ inputs.package }}')
        if injected == open(action).read():
            expect("the injection probe found its line in action.yml", False,
                   "the pip install line changed; update the probe")
        else:
            with open(bad, "w") as f:
                f.write(injected)
            rc, out = run(zz + [bad])
            expect("zizmor flags an input expanded into a run: script",
                   rc != 0 and "template-injection" in out, out)
    if failures:
        print(f"FAIL: {len(failures)} check(s)")
        return 1
    print("PASS: the action, its example workflow and the hooks' manifest validate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
