"""Reading src/ff/constants.h's tables from the generator scripts."""
import re
import sys


def values(text, name):
    """a table of constants.h as integers (one per {...} group of words)"""
    m = re.search(r"static const uint64_t %s\[[^=]*\] = \{(.*?)\};" % re.escape(name), text, re.S)
    if not m:
        sys.exit("constants.h has no table %s" % name)
    groups = re.findall(r"\{([^{}]*)\}", m.group(1)) or [m.group(1)]
    return [sum(int(w.strip().rstrip("ULL"), 16) << (64 * i) for i, w in enumerate(g.split(","))) for g in groups]
