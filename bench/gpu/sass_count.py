#!/usr/bin/env python3
"""Instruction counts of an sm_90 cubin, per function, for the predictions of
the GPU microbenchmarks (bench/results/2026-12-07-gpu-microbench-predictions.md)
where cuobjdump is not installed.

    nvcc -cubin -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 \\
        -Iinclude -Isrc bench/gpu/probe_sass.cu -o build/probe_sass.cubin
    python3 bench/gpu/sass_count.py build/probe_sass.cubin [name-substring]

Reads the ELF sections .text.<function> (16-byte instructions). On Volta and
later the low 9 bits of an instruction are its opcode and bits 9-11 its
operand form (1 register-register, 4 immediate, 5 constant bank, 6/7 other
register or uniform-register forms); only the opcodes these kernels use are
named, each checked against a kernel of that one instruction (mad.lo.u32 ->
IMAD, mad.wide.u32 -> IMAD.WIDE, fma.rn.f64 -> DFMA, add.f64 -> DADD,
mul.f64 -> DMUL, lop3.b32 -> LOP3, shf -> SHF, shfl -> SHFL, clock64 -> CS2R,
...); others print as hex. IMADs are split by what they compute: a true
multiply, a move (IMAD.MOV: a factor RZ), an add (a factor of
immediate 1: IMAD.IADD) or a shift (an immediate power of two and no
addend: IMAD.SHL). Registers: Rd bits 16-23, Ra 24-31, Rb 32-39 (register
form) or the immediate bits 32-63, Rc bits 64-71; RZ is 255."""
import collections
import struct
import sys

NAMES = {
    0x002: "MOV", 0x005: "CS2R", 0x007: "SEL", 0x00C: "ISETP", 0x010: "IADD3", 0x011: "LEA",
    0x012: "LOP3", 0x016: "PRMT", 0x019: "SHF", 0x024: "IMAD", 0x025: "IMAD.WIDE",
    0x027: "IMAD.HI", 0x028: "DMUL", 0x029: "DADD", 0x02B: "DFMA", 0x036: "VIADD",
    0x118: "NOP", 0x119: "S2R", 0x11D: "BAR", 0x143: "CALL", 0x147: "BRA", 0x14D: "EXIT",
    0x150: "RET", 0x181: "LDG", 0x183: "LDL", 0x184: "LDS", 0x186: "STG", 0x187: "STL",
    0x188: "STS", 0x189: "SHFL", 0x0B9: "ULDC", 0x182: "UMOV",
}
RZ = 255
# what the pipes count: everything but control, memory and the uniform datapath
NOT_COUNTED = {"NOP", "S2R", "BAR", "CALL", "BRA", "EXIT", "RET", "LDG", "LDL", "LDS", "STG",
               "STL", "STS", "ULDC", "UMOV", "CS2R"}


def sections(path):
    d = open(path, "rb").read()
    if d[:4] != b"\x7fELF":
        sys.exit(f"{path}: not an ELF file (compile with nvcc -cubin)")
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    strtab_off = hdrs[shstrndx][4]
    for h in hdrs:
        name = d[strtab_off + h[0]:d.index(b"\0", strtab_off + h[0])].decode()
        yield name, d[h[4]:h[4] + h[5]]


def classify(w0, w1):
    op, form = w0 & 0x1FF, (w0 >> 9) & 7
    name = NAMES.get(op, "op%03x" % op)
    if name in ("IMAD", "IMAD.WIDE"):
        ra, rb, imm, rc = (w0 >> 24) & 0xFF, (w0 >> 32) & 0xFF, (w0 >> 32) & 0xFFFFFFFF, w1 & 0xFF
        if ra == RZ or (form == 1 and rb == RZ):
            return name + ".mov"
        if form == 4 and imm == 1:
            return name + ".add"
        if form == 4 and rc == RZ and imm & (imm - 1) == 0:
            return name + ".shl"
    return name


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    want = sys.argv[2] if len(sys.argv) > 2 else ""
    for name, body in sections(sys.argv[1]):
        if not name.startswith(".text.") or want not in name:
            continue
        c = collections.Counter()
        for i in range(0, len(body), 16):
            c[classify(*struct.unpack_from("<QQ", body, i))] += 1
        counted = sum(n for k, n in c.items() if k not in NOT_COUNTED)
        print(f"{name[6:]}: {counted} arithmetic instructions ({len(body) // 16} in all)")
        print("   " + ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: -kv[1])
                                 if k not in NOT_COUNTED))


if __name__ == "__main__":
    main()
