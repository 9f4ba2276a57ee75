"""Makes Debian -dev packages unpacked under PREFIX (dpkg -x) usable there: every absolute /usr/... path in
their CMake and pkg-config files that exists under PREFIX is rewritten to PREFIX/usr/...; paths that do not
(the C library's, e.g. librt.a) are left to the system. Used by tests/gpu/device_check.sh."""
import pathlib
import re
import sys

prefix = sys.argv[1].rstrip("/")
root = pathlib.Path(prefix, "usr")
pattern = re.compile(r"(?<![\w./+-])/usr(?:/[\w./+-]*)?")


def relocate(match):
    path = match.group(0)
    return prefix + path if pathlib.Path(prefix + path.rstrip("/.")).exists() else path


changed = 0
for f in [*root.rglob("*.cmake"), *root.rglob("*.pc")]:
    if f.is_symlink() or not f.is_file():
        continue
    text = f.read_text(errors="replace")
    new = pattern.sub(relocate, text)
    if new != text:
        f.write_text(new)
        changed += 1
print(f"relocate_prefix: {changed} files rewritten under {prefix}")
