#!/usr/bin/env python3
"""The include layering of src/ against docs/ARCHITECTURE.md's layer table:
a file in src/<folder> may include only its own folder, include/cuzk and
the folders its row's "depends on" names, with theirs (the closure); "all
above" names every row above, "everything" every folder. Nothing outside
src/gpu includes a CUDA header (the .cuh files or the CUDA toolkit's).
Prints each file that breaks a rule and exits 1 if any does."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
rows = re.findall(r"^\| `src/(\w+)` \|.*\| ([^|]+) \|$", (root / "docs/ARCHITECTURE.md").read_text(), re.M)
if not rows:
    sys.exit("include_layers: no layer table found in docs/ARCHITECTURE.md")
folders = [f for f, _ in rows]
direct = {}
for i, (folder, deps) in enumerate(rows):
    deps = re.sub(r"\(.*?\)", "", deps).strip()
    if deps == "all above":
        direct[folder] = set(folders[:i])
    elif deps == "everything":
        direct[folder] = set(folders) - {folder}
    else:
        direct[folder] = {d.strip() for d in deps.split(",") if d.strip() not in ("", "-")}


def closure(folder, seen=()):
    out = set()
    for d in direct.get(folder, ()):
        if d not in seen:
            out |= {d} | closure(d, seen + (folder,))
    return out


allowed = {f: closure(f) | {f, "cuzk"} for f in folders}
bad = []
for path in sorted((root / "src").rglob("*")):
    if not path.is_file() or path.suffix not in (".c", ".h", ".inc", ".cu", ".cuh", ".S"):
        continue
    folder = path.relative_to(root / "src").parts[0]
    if folder not in allowed:
        bad.append(f"{path.relative_to(root)}: folder src/{folder} is not in the layer table")
        continue
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
        if not m:
            continue
        name = m.group(2)
        if folder != "gpu" and (name.endswith(".cuh") or name.startswith("cuda")):
            bad.append(f"{path.relative_to(root)}:{n}: a CUDA header ({name}) outside src/gpu")
        elif m.group(1) == '"' and "/" in name and name.split("/")[0] not in allowed[folder]:
            bad.append(f"{path.relative_to(root)}:{n}: src/{folder} may not include {name}")
for path in sorted((root / "include").rglob("*.h")):
    for n, line in enumerate(path.read_text().splitlines(), 1):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        if m and not m.group(1).startswith("cuzk/"):
            bad.append(f"{path.relative_to(root)}:{n}: a public header includes {m.group(1)}")
print("\n".join(bad) if bad else f"include layering: {len(folders)} folders, no include against the table")
sys.exit(1 if bad else 0)
