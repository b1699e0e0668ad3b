#!/usr/bin/env python3
"""Writes src/ff/mont_x86_64.S: Montgomery arithmetic for 4- and 6-limb
moduli with the BMI2/ADX instructions (mulx, adcx, adox), the hand-scheduled
twins of the portable routines in src/ff/mont.h (same contracts: inputs < m,
outputs < m, m's top word below 2^63 - 1, inv = -m^-1 mod 2^64; for
mont_mul2 and mont_sqr2 also 4m < 2^(64n)).

    void mont_mul_<n>_adx(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *m, uint64_t inv);
    void mont_mul2_<n>_adx(...), mont_sqr2_<n>_adx(r, a, m, inv)

mont_mul, per word b[i] (CIOS, no-carry form): t += a * b[i];
q = t[0] * inv; t = (t + q m) / 2^64. Each product row runs two carry chains
at once: adcx adds the low halves, adox the high halves one word up. The
division by 2^64 is free: t[0] is zero after the q m row, so that register
becomes the new top word and the roles rotate. A final conditional
subtraction (cmov, no branch) brings t below m.

mont_mul2 / mont_sqr2 multiply and square in F[u]/(u^2 + 1) (Fp2), the
operands (c0, c1) stored as 2n consecutive words, with lazy reduction: the
double-width products are combined unreduced and each output coefficient is
reduced once (REDC(x) + REDC(y) = REDC(x + y)):
    mul: c0 = REDC(a0 b0 - a1 b1 [+ m R when negative]),
         c1 = REDC((a0 + a1)(b0 + b1) - a0 b0 - a1 b1)
    sqr: c0 = REDC((a0 + a1)(a0 + m - a1)),  c1 = REDC(a0 (2 a1))
REDC(T) = T / R mod m needs T < m R: the sums are below 2m < R, so every T
above is below 4 m^2 < m R (m < R / 4). REDC reduces the low half
(T_lo + q m) / R <= m, adds the high half (< m) and subtracts m once.

The second output, src/ff/mont_x86_64.h, holds modular addition and
subtraction as inline assembly (add/adc/sbb chains: base x86-64, so no CPU
check; GCC's code for the C forms spills the carries to memory):
    mont_add_<n>_x86(r, a, b, m): d = a + b - m; r = d + (m if that borrowed, else 0)
    mont_sub_<n>_x86(r, a, b, m): d = a - b;     r = d + (m if that borrowed, else 0)

Usage: python3 tools/gen_mont_asm.py src/ff/mont_x86_64.S src/ff/mont_x86_64.h
"""
import sys

# SysV arguments: rdi = r, rsi = a, rdx = b, rcx = m, r8 = inv.
# b moves to r11 (rdx feeds mulx). Working registers come from POOL in order,
# the free caller-saved ones first: each callee-saved one costs a push and a
# pop, and r8 and rdi (inv and r) a trip through the stack.
A, B, M = "rsi", "r11", "rcx"
POOL = ["r9", "r10", "rbx", "rbp", "r12", "r13", "r14", "r15", "r8", "rdi"]
SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]


def mem(base, off):
    return f"[{base} + {off}]"


class Emitter:
    def __init__(self, n):
        self.n = n
        self.out = []

    def op(self, text):
        self.out.append("    " + text)

    def header(self, name, saved):
        self.out += [f".globl {name}", f".type {name}, @function", f"{name}:", "    endbr64"]
        for reg in saved:
            self.op(f"push {reg}")

    def footer(self, name, saved):
        for reg in reversed(saved):
            self.op(f"pop {reg}")
        self.out += ["    ret", f".size {name}, .-{name}", ""]

    def row(self, t, src, lo, hi):
        """t[0..n] += rdx * src(0..n-1); rax is zero, CF and OF clear."""
        for j in range(self.n):
            self.op(f"mulx {hi}, {lo}, {src(j)}")
            self.op(f"adcx {t[j]}, {lo}")
            self.op(f"adox {t[j + 1]}, {hi}")
        self.op(f"adcx {t[self.n]}, rax")

    def reduce_round(self, t, lo, hi, inv):
        """q = t[0] * inv; t = (t + q m) / 2^64. Returns the rotated t."""
        self.op(f"mov rdx, {t[0]}")
        self.op(f"imul rdx, {inv}")
        self.op("xor eax, eax")
        self.row(t, lambda j: mem(M, 8 * j), lo, hi)
        return t[1:] + t[:1]   # t[0] is now zero: it becomes the top word

    def sub_m_select(self, t, spare):
        """spare = t - m unless that borrows, else t (t < 2m)."""
        for j in range(self.n):
            self.op(f"mov {spare[j]}, {t[j]}")
            self.op(f"{'sub' if j == 0 else 'sbb'} {spare[j]}, {mem(M, 8 * j)}")
        for j in range(self.n):
            self.op(f"cmovc {spare[j]}, {t[j]}")

    def add_words(self, dst, x, y, tmp, words=None):
        """dst = x + y over `words` words (default n) of memory operands
        given as functions of the word index; the carry is dropped."""
        for j in range(words or self.n):
            self.op(f"mov {tmp}, {x(j)}")
            self.op(f"{'add' if j == 0 else 'adc'} {tmp}, {y(j)}")
            self.op(f"mov {dst(j)}, {tmp}")

    def sub_words(self, dst, x, y, tmp, words):
        """dst = x - y; the borrow is left in CF."""
        for j in range(words):
            self.op(f"mov {tmp}, {x(j)}")
            self.op(f"{'sub' if j == 0 else 'sbb'} {tmp}, {y(j)}")
            self.op(f"mov {dst(j)}, {tmp}")

    def mul_wide(self, dst, x, y):
        """dst(0..2n-1) = x * y, operands as functions of the word index:
        row i adds x * y[i] into n + 1 accumulator words, whose lowest word
        is then final and stored; the registers rotate as in mont_mul."""
        n = self.n
        t, lo, hi = POOL[: n + 1], POOL[n + 1], POOL[n + 2]
        self.op("xor eax, eax")
        for reg in t:
            self.op(f"xor {reg}, {reg}")
        for i in range(n):
            self.op(f"mov rdx, {y(i)}")
            self.row(t, x, lo, hi)
            self.op(f"mov {dst(i)}, {t[0]}")
            t = t[1:] + t[:1]
            self.op(f"xor {t[n]}, {t[n]}")     # also clears CF and OF
        for j in range(n):
            self.op(f"mov {dst(n + j)}, {t[j]}")

    def redc(self, src, dst, inv, spare):
        """dst(0..n-1) = src / R mod m for the 2n-word src < m R."""
        n = self.n
        t, lo, hi = POOL[: n + 1], POOL[n + 1], POOL[n + 2]
        for j in range(n):
            self.op(f"mov {t[j]}, {src(j)}")
        self.op(f"xor {t[n]}, {t[n]}")
        for i in range(n):
            t = self.reduce_round(t, lo, hi, inv)
        self.op(f"add {t[0]}, {src(n)}")       # + the high half: below 2m
        for j in range(1, n):
            self.op(f"adc {t[j]}, {src(n + j)}")
        spare = [t[n], lo, hi] + spare
        self.sub_m_select(t, spare)
        for j in range(n):
            self.op(f"mov {dst(j)}, {spare[j]}")


def mont_mul(n):
    e, name = Emitter(n), f"mont_mul_{n}_adx"
    t = POOL[: n + 1]        # t[0..n], t[n] zero at the top of each round
    lo, hi = POOL[n + 1], POOL[n + 2]
    saved = [reg for reg in SAVED if reg in POOL[: n + 3]]
    stack_r, stack_inv = "rdi" in POOL[: n + 3], "r8" in POOL[: n + 3]
    e.header(name, saved)
    if stack_r:
        e.op("push rdi")
    if stack_inv:
        e.op("push r8")      # [rsp] = inv
    e.op("mov r11, rdx")
    for reg in t:
        e.op(f"xor {reg}, {reg}")
    for i in range(n):
        e.op(f"/* round {i}: t += a * b[{i}] */")
        e.op(f"mov rdx, {mem(B, 8 * i)}")
        e.op("xor eax, eax")
        e.row(t, lambda j: mem(A, 8 * j), lo, hi)
        e.op("/* q = t[0] * inv; t = (t + q m) / 2^64 */")
        t = e.reduce_round(t, lo, hi, "[rsp]" if stack_inv else "r8")
    # t[0..n-1] < 2m: subtract m unless that borrows
    spare = [t[n], lo, hi, "rdx", A, B, "rax"][:n]
    e.sub_m_select(t, spare)
    if stack_inv:
        e.op("add rsp, 8")
    if stack_r:
        e.op("pop rdi")
    for j in range(n):
        e.op(f"mov {mem('rdi', 8 * j)}, {spare[j]}")
    e.footer(name, saved)
    return e.out


class Frame:
    """Stack frame of the Fp2 routines: [rsp] = inv, [rsp + 8] = r, then
    named slots of words."""

    def __init__(self, n, slots):
        self.off, at = {}, 16
        for name, words in slots:
            self.off[name] = at
            at += 8 * words * n
        self.size = at

    def __call__(self, name, base=0):
        return lambda j: mem("rsp", self.off[name] + 8 * (base + j))


def fp2_prologue(e, frame):
    e.op(f"sub rsp, {frame.size}")
    e.op("mov [rsp], r8")
    e.op("mov [rsp + 8], rdi")


def fp2_epilogue(e, frame, t0, t1):
    """r = (REDC(t0), REDC(t1))."""
    n = e.n
    for half, src in enumerate((t0, t1)):
        e.op("mov rdi, [rsp + 8]")
        e.redc(src, lambda j, h=half: mem("rdi", 8 * (n * h + j)), "[rsp]", ["rdx", "rsi", "r11"])
    e.op(f"add rsp, {frame.size}")


def mont_mul2(n):
    """(a0 + a1 u)(b0 + b1 u), Karatsuba with two reductions."""
    e, name = Emitter(n), f"mont_mul2_{n}_adx"
    f = Frame(n, [("sa", 1), ("sb", 1), ("t0", 2), ("t1", 2), ("t2", 2)])
    e.header(name, SAVED)
    fp2_prologue(e, f)
    e.op("mov r11, rdx")
    a0, a1 = (lambda j: mem(A, 8 * j)), (lambda j: mem(A, 8 * (n + j)))
    b0, b1 = (lambda j: mem(B, 8 * j)), (lambda j: mem(B, 8 * (n + j)))
    e.op("/* sa = a0 + a1, sb = b0 + b1 (both below 2m) */")
    e.add_words(f("sa"), a0, a1, "rax")
    e.add_words(f("sb"), b0, b1, "rax")
    e.op("/* t0 = a0 b0, t1 = a1 b1, t2 = sa sb */")
    e.mul_wide(f("t0"), a0, b0)
    e.mul_wide(f("t1"), a1, b1)
    e.mul_wide(f("t2"), f("sa"), f("sb"))
    e.op("/* t2 -= t0 + t1 (= a0 b1 + a1 b0) */")
    e.sub_words(f("t2"), f("t2"), f("t0"), "rax", 2 * n)
    e.sub_words(f("t2"), f("t2"), f("t1"), "rax", 2 * n)
    e.op("/* t0 -= t1; when that borrows, t0 += m R */")
    e.sub_words(f("t0"), f("t0"), f("t1"), "rax", 2 * n)
    e.op("sbb rax, rax")
    masked = POOL[:n]
    for j in range(n):
        e.op(f"mov {masked[j]}, {mem(M, 8 * j)}")
        e.op(f"and {masked[j]}, rax")
    for j in range(n):
        e.op(f"{'add' if j == 0 else 'adc'} {f('t0', n)(j)}, {masked[j]}")
    fp2_epilogue(e, f, f("t0"), f("t2"))
    e.footer(name, SAVED)
    return e.out


def mont_sqr2(n):
    """(a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u, two reductions."""
    e, name = Emitter(n), f"mont_sqr2_{n}_adx"
    f = Frame(n, [("s", 1), ("d", 1), ("a2", 1), ("t0", 2), ("t1", 2)])
    e.header(name, SAVED)
    e.op("mov r11, rdx")     # m arrives in rdx, inv in rcx
    e.op("mov r8, rcx")
    e.op("mov rcx, r11")
    fp2_prologue(e, f)
    a0, a1 = (lambda j: mem(A, 8 * j)), (lambda j: mem(A, 8 * (n + j)))
    e.op("/* s = a0 + a1, d = a0 + m - a1, a2 = 2 a1 (all below 2m) */")
    e.add_words(f("s"), a0, a1, "rax")
    e.add_words(f("d"), a0, lambda j: mem(M, 8 * j), "rax")
    e.sub_words(f("d"), f("d"), a1, "rax", n)
    e.add_words(f("a2"), a1, a1, "rax")
    e.mul_wide(f("t0"), f("s"), f("d"))
    e.mul_wide(f("t1"), a0, f("a2"))
    fp2_epilogue(e, f, f("t0"), f("t1"))
    e.footer(name, SAVED)
    return e.out


def asm_statement(body, outputs, inputs):
    """An __asm__ statement in AT&T syntax, one instruction a line."""
    text = [f'"{line}\\n\\t"' for line in body]
    out = [f"    __asm__({text[0]}"] + [f"            {line}" for line in text[1:]]
    return out + [f"            : {', '.join(outputs)}", f"            : {', '.join(inputs)}", '            : "cc");']


def operands(prefix, n, constraint, src=None):
    return [f'[{prefix}{j}] "{constraint}"({src or prefix}{f"[{j}]" if src else j})' for j in range(n)]


def inline_addsub(n, name, comment, first):
    """r = d + (m and k) where the asm statement `first` leaves d in s0..
    and k = all ones when its last step borrowed. Two statements: in one,
    n = 6 would need more registers than x86-64 has to spare."""
    w = range(n)
    add = [f"{'addq' if j == 0 else 'adcq'} %[t{j}], %[s{j}]" for j in w]
    out = [f"/* {comment} (r may alias a or b) */",
           f"MONT_INLINE void {name}(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m)",
           "{", "    uint64_t " + ", ".join(f"s{j} = a[{j}]" for j in w) + ", k;"]
    out += first
    out += ["    uint64_t " + ", ".join(f"t{j} = m[{j}] & k" for j in w) + ";"]
    out += asm_statement(add, operands("s", n, "+r"), operands("t", n, "rm"))
    return out + [f"    r[{j}] = s{j};" for j in w] + ["}", ""]


def inline_add(n):
    """s = a + b - m (a + b < 2m < 2^(64n): no carry out); add m back when
    the subtraction borrowed."""
    w = range(n)
    body = [f"{'addq' if j == 0 else 'adcq'} %[b{j}], %[s{j}]" for j in w]
    body += [f"{'subq' if j == 0 else 'sbbq'} %[m{j}], %[s{j}]" for j in w] + ["sbbq %[k], %[k]"]
    first = asm_statement(body, operands("s", n, "+r") + ['[k] "=r"(k)'],
                          operands("b", n, "m", "b") + operands("m", n, "m", "m"))
    return inline_addsub(n, f"mont_add_{n}_x86", "r = a + b mod m", first)


def inline_sub(n):
    """s = a - b; add m back when that borrowed."""
    w = range(n)
    body = [f"{'subq' if j == 0 else 'sbbq'} %[b{j}], %[s{j}]" for j in w] + ["sbbq %[k], %[k]"]
    first = asm_statement(body, operands("s", n, "+r") + ['[k] "=r"(k)'], operands("b", n, "m", "b"))
    return inline_addsub(n, f"mont_sub_{n}_x86", "r = a - b mod m", first)


def main():
    lines = ["/* Generated by tools/gen_mont_asm.py: do not edit. */",
             "    .intel_syntax noprefix", "    .text"]
    for gen in (mont_mul, mont_mul2, mont_sqr2):
        for n in (4, 6):
            lines += ["    .p2align 5"] + gen(n)
    lines += ['    .section .note.GNU-stack,"",@progbits', ""]
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(lines))
    lines = ["/* Generated by tools/gen_mont_asm.py: do not edit. Included by mont.h. */"]
    for gen in (inline_add, inline_sub):
        for n in (4, 6):
            lines += gen(n)
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
