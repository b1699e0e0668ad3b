/* cuzk's glue for a circom circuit translated by wasm2c: the C program that
 * src/witness/wasm_build.c compiles with each circuit's translation into
 * one shared object (src/witness/wasm_glue.h says what its entry points
 * do). It is not part of libcuzk: the library carries its text (wasm_glue.c
 * embeds it at build time), so that nothing but wabt and a C compiler has
 * to be installed. It includes only wasm2c's and the runtime's headers;
 * wasm_glue.h's numbers come as the compiler's -D flags.
 * The program is two files, one text: this one (the runtime's instance,
 * 256-bit arithmetic and circom's field helpers natively) and entries.c
 * after it (the object's entry points). */
#if !defined(WASM_GLUE_ABI) || !defined(WASM_GLUE_INFO_N) || !defined(WASM_GLUE_POLL_EVERY) || \
    !defined(WASM_GLUE_TRAP_STOPPED)
#error "compiled by wasm_build.c, which defines wasm_glue.h's numbers"
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "circuit.h"
#include "wasm-rt-impl.h"

#define API __attribute__((visibility("default")))
typedef void exception_fn(void *ctx, uint32_t code);
typedef void message_fn(void *ctx, int kind, const char *text);
typedef void value_fn(void *ctx, const uint32_t *words, uint32_t n);
typedef int stop_fn(void *ctx);

/* circom's imports come from module "runtime": this is its instance */
struct Z_runtime_instance_t {
    u32 depth;   /* first: the call depth the translation counts (wasm_build.c) */
    u32 poll_in; /* second: calls and loop turns until the next poll (cuzk_glue_poll) */
    void *ctx;
    stop_fn *should_stop;
    exception_fn *on_exception;
    message_fn *on_message;
    value_fn *on_value;
    uint64_t q[4], np; /* the circuit's prime, and -1/q mod 2^64 */
    /* the Montgomery forms of values v < 64: small_mont[v] = v small_r2 / R
     * mod q, for the last R^2 seen at 672 (zeros at first, as the instance
     * is calloc'd, which agree: a zero operand's product is 0); and
     * mont_slot[slot_of(a form's low word)] = v + 1 for a v whose form
     * from_mont makes v again (0: none) */
    u8 small_r2[32], small_mont[64][32], mont_slot[256];
    pthread_t filler; /* fill_pages, while filling */
    int filling;
    atomic_int stop_filling;
    Z_circuit_instance_t module;
};

/* 64-bit adds and subtracts with carry: x86-64's adc and sbb where there
 * are (cc -O2 makes a chain of __int128 sums into stack traffic), and the
 * 256-bit helpers unrolled (cc -O2 keeps loops, and with them the words
 * in memory). */
#if defined(__x86_64__)
#include <x86intrin.h>
static inline unsigned char addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long s;
    c = _addcarry_u64(c, a, b, &s);
    *r = s;
    return c;
}
static inline unsigned char subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned long long d;
    c = _subborrow_u64(c, a, b, &d);
    *r = d;
    return c;
}
#else
static inline unsigned char addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned __int128 s = (unsigned __int128)a + b + c;
    *r = (uint64_t)s;
    return (unsigned char)(s >> 64);
}
static inline unsigned char subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
    unsigned __int128 d = (unsigned __int128)a - b - c;
    *r = (uint64_t)d;
    return (unsigned char)(d >> 64) & 1;
}
#endif
static inline uint64_t mul64(uint64_t a, uint64_t b, uint64_t *hi)
{
    unsigned __int128 p = (unsigned __int128)a * b;
    *hi = (uint64_t)(p >> 64);
    return (uint64_t)p;
}

/* 256-bit values in memory a 64-bit load or store a word: cc makes a
 * 32-byte memcpy into an array two vector stores to the stack, whose
 * halves the word loads after it wait for (store-to-load forwarding
 * fails: a third of Fr_toInt's samples, a sixth of F1m_add's, on such
 * loads in a SHA-256 witness); a choice of two arrays as a pointer keeps
 * both in memory the same way, so results are chosen by a mask. */
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void load256(uint64_t w[4], const uint8_t *p)
{
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) w[j] = ld64(p + 8 * j);
}
static inline void store256(uint8_t *p, const uint64_t w[4])
{
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) st64(p + 8 * j, w[j]);
}
/* r = take ? a : b, without a branch: a cmov a word on x86-64 (cc makes
 * a ternary a branch, and a mask three instructions a word), else a mask */
static inline void store_chosen(uint8_t *r, int take, const uint64_t a[4], const uint64_t b[4])
{
#if defined(__x86_64__)
    uint64_t w[4] = {b[0], b[1], b[2], b[3]};
    __asm__("test %4, %4\n\tcmovnz %5, %0\n\tcmovnz %6, %1\n\tcmovnz %7, %2\n\tcmovnz %8, %3"
            : "+r"(w[0]), "+r"(w[1]), "+r"(w[2]), "+r"(w[3])
            : "r"(take), "rm"(a[0]), "rm"(a[1]), "rm"(a[2]), "rm"(a[3])
            : "cc");
    store256(r, w);
#else
    uint64_t m = 0 - (uint64_t)(take != 0);
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) st64(r + 8 * j, (a[j] & m) | (b[j] & ~m));
#endif
}

/* Montgomery on 64-bit words, t[0..5]: one round adds a w to t (t < 2^257
 * before, so six words hold it), a's words read where they are (an
 * operand's address, or q), its low and high halves of the products in two
 * carry chains */
typedef void round_fn(uint64_t t[6], const uint8_t *a, uint64_t w);
static inline void mul_add_round(uint64_t t[6], const uint8_t *a, uint64_t w)
{
    uint64_t lo[4], hi[4];
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) lo[j] = mul64(ld64(a + 8 * j), w, &hi[j]);
    unsigned char c = 0;
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) c = addc(c, t[j], lo[j], &t[j]);
    c = addc(c, t[4], 0, &t[4]);
    t[5] += c;
    c = 0;
    _Pragma("GCC unroll 3") for (int j = 1; j < 4; j++) c = addc(c, t[j], hi[j - 1], &t[j]);
    c = addc(c, t[4], hi[3], &t[4]);
    t[5] += c;
}
#if defined(__x86_64__)
/* the same sum where the CPU has BMI2 and ADX: mulx (hi:lo = rdx a_j, the
 * flags untouched) and both chains at once, adcx carrying in CF
 * (t_j += lo_j + CF) and adox in OF (t_j+1 += hi_j + OF); each chain's last
 * carry goes to t[5]. cc's own code for mul_add_round keeps t on the stack
 * (~85 of a product's ~295 instructions) */
static inline void mul_add_round_adx(uint64_t t[6], const uint8_t *a, uint64_t w)
{
    uint64_t lo, hi, z;
    __asm__("xor %k[z], %k[z]\n\t" /* z = 0, CF = OF = 0 */
            "mulx (%[a]), %[lo], %[hi]\n\tadcx %[lo], %[t0]\n\tadox %[hi], %[t1]\n\t"
            "mulx 8(%[a]), %[lo], %[hi]\n\tadcx %[lo], %[t1]\n\tadox %[hi], %[t2]\n\t"
            "mulx 16(%[a]), %[lo], %[hi]\n\tadcx %[lo], %[t2]\n\tadox %[hi], %[t3]\n\t"
            "mulx 24(%[a]), %[lo], %[hi]\n\tadcx %[lo], %[t3]\n\tadox %[hi], %[t4]\n\t"
            "adcx %[z], %[t4]\n\tadox %[z], %[t5]\n\tadcx %[z], %[t5]"
            : [t0] "+r"(t[0]), [t1] "+r"(t[1]), [t2] "+r"(t[2]), [t3] "+r"(t[3]), [t4] "+r"(t[4]),
              [t5] "+r"(t[5]), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
            : "d"(w), [a] "r"(a), "m"(*(const uint8_t(*)[32])a) /* the 32 bytes read */
            : "cc");
}
#endif
/* t = (t + k q) / 2^64, k = t[0] np making the low word 0 */
static inline __attribute__((always_inline)) void reduce_round(uint64_t t[6], const uint8_t *q, uint64_t np,
                                                               round_fn *add)
{
    add(t, q, t[0] * np);
    _Pragma("GCC unroll 5") for (int j = 0; j < 5; j++) t[j] = t[j + 1];
    t[5] = 0;
}
/* circom's last step: q subtracted when t >= 2^256 or t >= q (the
 * subtraction does not borrow), chosen without a branch */
static inline void reduce_final(const uint64_t t[5], const uint64_t q[4], uint8_t *r)
{
    uint64_t d[4];
    unsigned char borrow = 0;
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) borrow = subb(borrow, t[j], q[j], &d[j]);
    store_chosen(r, t[4] | !borrow, d, t);
}

/* circom's Fr_F1m_mul(x, y, r) natively, when wasm_build.c rerouted it
 * here: r = x y / 2^256 mod q on the 8 32-bit words at each address, by
 * CIOS on 64-bit words. t = (xy + mq) / 2^256 is one integer whatever the
 * word size (m < 2^256 is fixed by xy + mq = 0 mod 2^256), and the final
 * step is circom's, so r is the same bits as the wasm's for any inputs,
 * by either round. */
static inline __attribute__((always_inline)) void rounds(const struct Z_runtime_instance_t *rt, const uint8_t *x,
                                                         const uint8_t *y, uint8_t *r, round_fn *add)
{
    uint64_t t[6] = {0};
    /* t depends on the product xy only (m is fixed by it), so the
     * operands may trade places: a one-word operand (a power of two, a
     * short value made Montgomery: a third of the products) drives the
     * rounds, whose zero words add nothing to t */
    const uint8_t *u = x, *v = y, *q = (const uint8_t *)rt->q;
    if (!(ld64(x + 8) | ld64(x + 16) | ld64(x + 24))) {
        u = y;
        v = x;
    }
    _Pragma("GCC unroll 4") for (int i = 0; i < 4; i++) {
        uint64_t w = ld64(v + 8 * i);
        if (w) add(t, u, w);
        reduce_round(t, q, rt->np, add);
    }
    reduce_final(t, rt->q, r);
}
typedef void rounds_fn(const struct Z_runtime_instance_t *rt, const uint8_t *x, const uint8_t *y, uint8_t *r);
static __attribute__((noinline)) void mont_rounds_c(const struct Z_runtime_instance_t *rt, const uint8_t *x,
                                                    const uint8_t *y, uint8_t *r)
{
    rounds(rt, x, y, r, mul_add_round);
}
/* the rounds this CPU runs, chosen once at module start */
static rounds_fn *mont_rounds = mont_rounds_c;
#if defined(__x86_64__)
#include <cpuid.h>
static __attribute__((noinline)) void mont_rounds_adx(const struct Z_runtime_instance_t *rt, const uint8_t *x,
                                                      const uint8_t *y, uint8_t *r)
{
    rounds(rt, x, y, r, mul_add_round_adx);
}
/* cpuid leaf 7: EBX bit 8 = BMI2, bit 19 = ADX; CUZK_NO_ASM=1 keeps the C
 * rounds, as it does cuzk's own field code (src/ff/mont_cpu.c) */
static void pick_rounds(void)
{
    unsigned eax, ebx, ecx, edx;
    const char *off = getenv("CUZK_NO_ASM");
    if ((off && *off && *off != '0') || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
    if ((ebx >> 8 & 1) && (ebx >> 19 & 1)) mont_rounds = mont_rounds_adx;
}
#endif
/* a zero operand keeps every t word 0 (k = 0 each round), so r = 0:
 * 300 K of a SHA-256(1024) witness's 477 K products, answered here,
 * inlined, before the rounds save their registers */
static inline void mont_mul(const struct Z_runtime_instance_t *rt, const uint8_t *x, const uint8_t *y, uint8_t *r)
{
    uint64_t a[4], b[4];
    load256(a, x);
    load256(b, y);
    if (!(a[0] | a[1] | a[2] | a[3]) || !(b[0] | b[1] | b[2] | b[3])) memset(r, 0, 32);
    else mont_rounds(rt, x, y, r);
}

void cuzk_glue_mont_mul(Z_circuit_instance_t *m, u32 x, u32 y, u32 r)
{
    uint64_t size = m->w2c_memory.size;
    if ((uint64_t)x + 32 > size || (uint64_t)y + 32 > size || (uint64_t)r + 32 > size)
        wasm_rt_trap(WASM_RT_TRAP_OOB);
    uint8_t *mem = m->w2c_memory.data;
    mont_mul(m->Z_runtime_instance, mem + x, mem + y, mem + r);
}

/* circom's field helpers natively, when wasm_build.c rerouted them here
 * (its helper rows: only when every helper they stand for is the text of
 * circom 2.2.3's runtime as wabt 1.0.32 translates it). What they rely on,
 * read from that runtime:
 *   - an element at address a is 40 bytes: a+0 an i32, its value when short;
 *     a+4 its type word, whose top byte (a+7) holds 0x80 for long (the
 *     value is the 256-bit little-endian integer at a+8) and 0x40 for
 *     Montgomery (that integer is v R mod q, R = 2^256); the helpers test
 *     only those two bits and store whole type words;
 *   - the runtime's own words lie below 2048: q at 608, R^2 mod q at 672,
 *     R^3 mod q at 704, zero at 768, (q - 1) / 2 at 1920, Fr_shr's
 *     bound on a shift at 88 (an element: the prime's bits), the scratch
 *     elements at 8 and 16 (Fr_toInt's negation and Fr_shr's comparison,
 *     Fr_add's and Fr_sub's short operand made long; Fr_mod's quotient
 *     at 16..47), and
 *     992..1023, 1504..1567 and 160..323 (the reduction's carries and
 *     operand, the division's divisor, zeros and products: written
 *     before they are read by the only helpers that use them,
 *     Fr_F1m_mReduct and Fr_F1m_fromMontgomery, Fr_int_div).
 * Each native function does what its wasm does, branch for branch, with
 * the same stores to the same addresses in the same order (the scratch
 * elements included), except that the Montgomery reduction keeps its
 * carries and operand in registers instead of at 992 and 1504, and the
 * division its own at 160..323 (dead, as said). Its arithmetic on 256-bit integers is on 64-bit words where the
 * wasm's is on 32-bit words: sums, differences, borrows, carries and
 * comparisons of the same integers are the same integers. Whole-element
 * loads before stores give the wasm's word-by-word results when operands
 * are the same element or do not overlap, so each entry point takes only
 * elements above the runtime's words (>= 2048) or the element of the
 * shared memory at 1984 (getWitness's and setInputSignal's, clear of
 * every other word the helpers read or write), inside the memory, each
 * either the same as another argument or 40 bytes clear of it; any other
 * call (and so any trap) is left to the wasm (the entry returns 0). */
typedef uint8_t u8;
#define FR_LOW 2048u
#define FR_SHARED 1984u /* the element of the shared memory (its value at 1992) */
#define FR_HALF 1920u /* (q-1)/2: long normal values above it are negative */
#define FR_SHR_BOUND 88u /* Fr_shr's bound on a shift (the prime's bits) */
#define FR_BYTES 40u
#define FR_LONG(p) ((p)[7] & 0x80)
#define FR_MONT(p) ((p)[7] & 0x40)
enum { T_SHORT = 0, T_MONT_SHORT = 0x40000000, T_LONG = 0x80000000u, T_MONT_LONG = 0xC0000000u };

/* the memory, and the instance, whose runtime instance (rt_of) is read
 * where it is used: cc made the two adjacent loads of both pointers one
 * vector load, swap and store on every entry */
typedef struct {
    u8 *mem;
    Z_circuit_instance_t *m;
} fr_ctx;
static inline struct Z_runtime_instance_t *rt_of(const fr_ctx *c) { return c->m->Z_runtime_instance; }

static inline int32_t ld_s32(const u8 *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline uint32_t ld_u32(const u8 *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline void st_u32(u8 *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void set_type(u8 *p, uint32_t t) { st_u32(p + 4, t); }

static inline unsigned add256(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned char c = 0;
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) c = addc(c, a[j], b[j], &r[j]);
    return c;
}
static inline unsigned sub256(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned char c = 0;
    _Pragma("GCC unroll 4") for (int j = 0; j < 4; j++) c = subb(c, a[j], b[j], &r[j]);
    return c;
}
/* -1, 0, 1 as x < y, x = y, x > y; a word loaded only when the words
 * above it are equal (most comparisons end at the top word: a small value
 * against (q-1)/2) */
static inline int cmp256_at(const u8 *x, const u8 *y)
{
    _Pragma("GCC unroll 4") for (int j = 3; j >= 0; j--) {
        uint64_t a = ld64(x + 8 * j), b = ld64(y + 8 * j);
        if (a != b) return a > b ? 1 : -1;
    }
    return 0;
}

/* Fr_F1m_add: the sum; q subtracted on a carry or when the sum >= q
 * (the subtraction does not borrow), chosen without a branch. Inlined
 * into Fr_add's entry: as a call (744 K a SHA-256(1024) witness), its
 * saved registers and the call were a quarter of its instructions.
 * Fr_F1m_sub: the difference; q added on a borrow. */
#if defined(__x86_64__)
/* On x86-64 in eight registers (cc's code held the sum and the
 * difference in eight more, which its callers saved): one result stored
 * at r, once x and y are read whole (r may be either), the other made
 * from it in place, and r's words read back by cmov where they are the
 * answer. F1M_ASM: s = x yop y (yop0 on the low word), t = -carry or
 * -borrow, s stored at r, s made s qop q, pick sets the flag that cmov
 * reads, s stored again. */
#define F1M_CHAIN(op0, op, p)                                                                        \
    op0 " (%[" p "]), %[s0]\n\t" op " 8(%[" p "]), %[s1]\n\t" op " 16(%[" p "]), %[s2]\n\t" op " 24(%[" p \
        "]), %[s3]\n\t"
#define F1M_STORE "mov %[s0], (%[r])\n\tmov %[s1], 8(%[r])\n\tmov %[s2], 16(%[r])\n\tmov %[s3], 24(%[r])\n\t"
#define F1M_ASM(yop0, yop, qop0, qop, pick, cmov)                                                                \
    uint64_t s0, s1, s2, s3;                                                                             \
    uintptr_t t = (uintptr_t)x;                                                                          \
    __asm__(F1M_CHAIN("mov", "mov", "t") F1M_CHAIN(yop0, yop, "y") "sbb %k[t], %k[t]\n\t"                  \
            F1M_STORE F1M_CHAIN(qop0, qop, "q") pick F1M_CHAIN(cmov, cmov, "r") F1M_STORE           \
            : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [t] "+&r"(t),            \
              "+m"(*(u8(*)[32])r) /* the 32 bytes written and read back */                               \
            : [y] "r"(y), [q] "r"(c->mem + 608), [r] "r"(r), "m"(*(const u8(*)[32])x),                   \
              "m"(*(const u8(*)[32])y), "m"(*(const u8(*)[32])(c->mem + 608))                            \
            : "cc")
/* sum: t = 1 + borrow - carry, halved: 1 only when the sum did not carry
 * and s - q borrowed (s is kept) */
static inline __attribute__((always_inline)) void f1m_add(const fr_ctx *c, const u8 *x, const u8 *y, u8 *r)
{
    F1M_ASM("add", "adc", "sub", "sbb", "adc $1, %k[t]\n\tshr $1, %k[t]\n\t", "cmovnz");
}
/* difference: s + q made, s read back where nothing was borrowed */
static inline __attribute__((always_inline)) void f1m_sub(const fr_ctx *c, const u8 *x, const u8 *y, u8 *r)
{
    F1M_ASM("sub", "sbb", "add", "adc", "test %k[t], %k[t]\n\t", "cmovz");
}
#else
static inline __attribute__((always_inline)) void f1m_add(const fr_ctx *c, const u8 *x, const u8 *y, u8 *r)
{
    uint64_t a[4], b[4], q[4], s[4], d[4];
    load256(a, x);
    load256(b, y);
    load256(q, c->mem + 608);
    unsigned carry = add256(s, a, b), borrow = sub256(d, s, q);
    store_chosen(r, carry | !borrow, d, s);
}
static inline __attribute__((always_inline)) void f1m_sub(const fr_ctx *c, const u8 *x, const u8 *y, u8 *r)
{
    uint64_t a[4], b[4], q[4], s[4], t[4];
    load256(a, x);
    load256(b, y);
    load256(q, c->mem + 608);
    unsigned borrow = sub256(s, a, b);
    add256(t, s, q);
    store_chosen(r, borrow, t, s);
}
#endif
/* Fr_F1m_neg: zero (at 768) less x */
static void f1m_neg(const fr_ctx *c, const u8 *x, u8 *r) { f1m_sub(c, c->mem + 768, x, r); }

/* Fr_F1m_fromMontgomery: x / R mod q. The wasm's Fr_F1m_mReduct makes
 * t = (x + m q) / R with m < R the one that makes it whole, in 32-bit
 * rounds, and ends with Fr_F1m_add of its carries and t's top half
 * (subtracting q when t >= q); this is the same integer t, the
 * product x 1 / R's, and the same final step. */
static inline unsigned slot_of(uint64_t w) { return (unsigned)((w * 0x9E3779B97F4A7C15u) >> 56); }

static void from_mont(const fr_ctx *c, const u8 *x, u8 *r)
{
    uint64_t t[4];
    load256(t, x);
    /* zero stays zero (k = 0 each round): a quarter of the calls */
    if (!(t[0] | t[1] | t[2] | t[3])) {
        memset(r, 0, 32);
        return;
    }
    /* the form of a value below 64 (most of the rest: bits and small
     * indices) gives the value its slot names: this function's result
     * for that form, found when the slot was filled */
    unsigned v = rt_of(c)->mont_slot[slot_of(t[0])];
    if (v && !memcmp(rt_of(c)->small_mont[v - 1], x, 32)) {
        const uint64_t w[4] = {v - 1};
        store256(r, w);
        return;
    }
    static const uint64_t one[4] = {1};
    mont_rounds(rt_of(c), x, (const u8 *)one, r);
}

static inline void f1m_mul(const fr_ctx *c, const u8 *x, const u8 *y, u8 *r) { mont_mul(rt_of(c), x, y, r); }

/* Fr_rawCopyS2L: v > 0 as it is; otherwise -v, then negated mod q */
static void raw_copy_s2l(const fr_ctx *c, u8 *r, int64_t v)
{
    uint64_t w[4] = {v > 0 ? (uint64_t)v : 0 - (uint64_t)v, 0, 0, 0};
    memcpy(r, w, 32);
    if (v <= 0) f1m_neg(c, r, r);
}

/* a short result, or long when it does not fit in an i32 (the wasm's
 * test: the value shifted right by 31 is 0 or -1) */
static void store_short_or_long(const fr_ctx *c, u8 *r, int64_t v)
{
    int64_t overflow = v >> 31;
    if (overflow == 0 || overflow == -1) {
        st_u32(r, (uint32_t)v);
        set_type(r, T_SHORT);
    } else {
        set_type(r, T_LONG);
        raw_copy_s2l(c, r + 8, v);
    }
}

/* The forms of the values below 64 for the R^2 at 672, and the slots of
 * those from_mont makes their value again (checked by calling it, so a
 * slot always gives its result; a slot taken by a smaller value stays
 * its own); kept out of mont_value, whose every call saved registers for
 * it when it was inlined */
static __attribute__((noinline, cold)) void small_forms(const fr_ctx *c)
{
    struct Z_runtime_instance_t *rt = rt_of(c);
    memcpy(rt->small_r2, c->mem + 672, 32);
    memset(rt->mont_slot, 0, sizeof rt->mont_slot);
    for (uint64_t v = 0; v < 64; v++) {
        const uint64_t w[4] = {v};
        u8 back[32];
        mont_mul(rt, (const u8 *)w, rt->small_r2, rt->small_mont[v]);
        from_mont(c, rt->small_mont[v], back);
        u8 *slot = &rt->mont_slot[slot_of(ld64(rt->small_mont[v]))];
        if (v && !*slot && !memcmp(back, w, 32)) *slot = (u8)(v + 1);
    }
}

/* x = x R^2 / R mod q in place, R^2 the word at 672: a value into
 * Montgomery form. Values below 64 (most of a bit-heavy witness's
 * conversions: bits and small indices, 150 K a SHA-256(1024) witness
 * besides zeros) are taken from the forms made for the R^2 at 672, made
 * again if that ever differs, so x is always what f1m_mul would write. */
static void mont_value(const fr_ctx *c, u8 *x)
{
    uint64_t v = ld64(x);
    if (ld64(x + 8) | ld64(x + 16) | ld64(x + 24) || v >= 64) {
        f1m_mul(c, x, c->mem + 672, x);
        return;
    }
    if (memcmp(rt_of(c)->small_r2, c->mem + 672, 32)) small_forms(c);
    memcpy(x, rt_of(c)->small_mont[v], 32);
}

static void fr_to_montgomery(const fr_ctx *c, u8 *p)
{
    if (FR_MONT(p)) return;
    if (FR_LONG(p)) {
        set_type(p, T_MONT_LONG);
        mont_value(c, p + 8);
    } else {
        raw_copy_s2l(c, p + 8, ld_s32(p));
        mont_value(c, p + 8);
        set_type(p, T_MONT_SHORT); /* as circom's runtime does: the short flag stays */
    }
}

static void fr_to_normal(const fr_ctx *c, u8 *p)
{
    if (FR_MONT(p) && FR_LONG(p)) {
        set_type(p, T_LONG);
        from_mont(c, p + 8, p + 8);
    }
}

static void fr_to_long_normal(const fr_ctx *c, u8 *p)
{
    if (FR_LONG(p)) {
        if (FR_MONT(p)) {
            set_type(p, T_LONG);
            from_mont(c, p + 8, p + 8);
        }
    } else {
        raw_copy_s2l(c, p + 8, ld_s32(p));
        set_type(p, T_LONG);
    }
}

/* a long normal value's sign, as the runtime tests it */
static inline int long_negative(const fr_ctx *c, const u8 *p) { return cmp256_at(p + 8, c->mem + FR_HALF) > 0; }

static int fr_is_negative(const fr_ctx *c, u8 *p)
{
    if (FR_LONG(p)) {
        fr_to_normal(c, p);
        return long_negative(c, p);
    }
    return ld_s32(p) < 0;
}

static void fr_neg(const fr_ctx *c, u8 *r, const u8 *a)
{
    if (FR_LONG(a)) {
        set_type(r, FR_MONT(a) ? T_MONT_LONG : T_LONG);
        f1m_neg(c, a + 8, r + 8);
    } else {
        store_short_or_long(c, r, 0 - (int64_t)ld_s32(a));
    }
}

static uint32_t fr_get_lsb32(const fr_ctx *c, u8 *p)
{
    if (FR_LONG(p)) {
        fr_to_normal(c, p);
        return ld_u32(p + 8);
    }
    return ld_u32(p);
}

/* Fr_toInt: a negative value negated into the scratch element at 8. c
 * by value: a pointer to it made every Fr_toInt entry store it, fast
 * path or not (5 of its ~30 instructions). */
static __attribute__((noinline)) uint32_t fr_to_int_any(fr_ctx c, u8 *p)
{
    if (fr_is_negative(&c, p)) {
        fr_neg(&c, c.mem + 8, p);
        return 0 - fr_get_lsb32(&c, c.mem + 8);
    }
    return fr_get_lsb32(&c, p);
}
/* Fr_toInt's common operands (2 M calls a SHA-256(1024) witness: index
 * arithmetic on loop counters) at the cost of a few loads: a short
 * non-negative value, and a long normal one whose top word is below
 * (q-1)/2's (not negative) are their low 32 bits, stored nowhere */
static inline uint32_t fr_to_int(const fr_ctx *c, u8 *p)
{
    if (!FR_LONG(p)) {
        if (ld_s32(p) >= 0) return ld_u32(p);
    } else if (!FR_MONT(p) && ld64(p + 32) < ld64(c->mem + FR_HALF + 24)) {
        return ld_u32(p + 8);
    }
    return fr_to_int_any(*c, p);
}

/* Fr_mod: both operands made long normal in place, r long, then
 * Fr_int_div(a, b) with r's value as its remainder and 16 as its
 * quotient. Taken here (a SHA-256 witness's index arithmetic: 55 K
 * calls, ~1,100 instructions each in the wasm) when both values are
 * below 2^64, the divisor is not 0 and r is not b alone (the division
 * copies a's value into r's before it reads b's); otherwise declined
 * after the conversions, which the wasm then finds done. */
static int fr_mod(const fr_ctx *c, u8 *r, u8 *a, u8 *b)
{
    fr_to_long_normal(c, a);
    fr_to_long_normal(c, b);
    uint64_t x[4], y[4];
    load256(x, a + 8);
    load256(y, b + 8);
    if (x[1] | x[2] | x[3] | y[1] | y[2] | y[3] || !y[0] || (r == b && r != a)) return 0;
    set_type(r, T_LONG);
    const uint64_t quo[4] = {x[0] / y[0]}, rem[4] = {x[0] % y[0]};
    store256(c->mem + 16, quo);
    store256(r + 8, rem);
    return 1;
}

static int fr_is_true(const u8 *p)
{
    if (FR_LONG(p)) {
        static const u8 zero[32];
        return memcmp(p + 8, zero, 32) != 0;
    }
    return ld_u32(p) != 0;
}

typedef void f1m_op(const fr_ctx *, const u8 *, const u8 *, u8 *);

/* Fr_add and Fr_sub: the same branches, op F1m_add or F1m_sub, the short
 * operand of a long normal one made long in the scratch element at 16;
 * inlined into fr_add_any and fr_sub_any, where op is known and inlined
 * in turn */
static inline __attribute__((always_inline)) void fr_add_sub(const fr_ctx *c, u8 *r, u8 *a, u8 *b, f1m_op *op, int sub)
{
    u8 *s = c->mem + 16;
    if (FR_LONG(a)) {
        if (FR_LONG(b)) {
            if (FR_MONT(a) != 0 && FR_MONT(b) == 0) fr_to_montgomery(c, b);
            else if (FR_MONT(a) == 0 && FR_MONT(b) != 0) fr_to_montgomery(c, a);
            else if (FR_MONT(a) == 0) {
                set_type(r, T_LONG);
                op(c, a + 8, b + 8, r + 8);
                return;
            }
            set_type(r, T_MONT_LONG);
            op(c, a + 8, b + 8, r + 8);
        } else if (FR_MONT(a)) {
            fr_to_montgomery(c, b);
            set_type(r, T_MONT_LONG);
            op(c, a + 8, b + 8, r + 8);
        } else {
            set_type(r, T_LONG);
            raw_copy_s2l(c, s, ld_s32(b));
            op(c, a + 8, s, r + 8);
        }
    } else if (FR_LONG(b)) {
        if (FR_MONT(b)) {
            fr_to_montgomery(c, a);
            set_type(r, T_MONT_LONG);
            op(c, a + 8, b + 8, r + 8);
        } else {
            set_type(r, T_LONG);
            raw_copy_s2l(c, s, ld_s32(a));
            op(c, s, b + 8, r + 8);
        }
    } else {
        int64_t x = ld_s32(a), y = ld_s32(b);
        store_short_or_long(c, r, sub ? x - y : x + y);
    }
}

/* Fr_add's and Fr_sub's entries: two long operands of one form (three
 * fifths of a SHA-256 witness's: both normal or both Montgomery) are
 * fr_add_sub's op alone, made there in registers enough that the entry
 * saves none; the rest out of line, where their conversions' calls save
 * what they need */
static __attribute__((noinline)) void fr_add_any(fr_ctx c, u8 *r, u8 *a, u8 *b) { fr_add_sub(&c, r, a, b, f1m_add, 0); }
static __attribute__((noinline)) void fr_sub_any(fr_ctx c, u8 *r, u8 *a, u8 *b) { fr_add_sub(&c, r, a, b, f1m_sub, 1); }
static inline __attribute__((always_inline)) void fr_add_sub_entry(const fr_ctx *c, u8 *r, u8 *a, u8 *b, int sub)
{
    if (!(a[7] & b[7] & 0x80) || ((a[7] ^ b[7]) & 0x40)) {
        (sub ? fr_sub_any : fr_add_any)(*c, r, a, b);
        return;
    }
    set_type(r, FR_MONT(a) ? T_MONT_LONG : T_LONG);
    (sub ? f1m_sub : f1m_add)(c, a + 8, b + 8, r + 8);
}

static void fr_mul(const fr_ctx *c, u8 *r, u8 *a, u8 *b)
{
    if (FR_LONG(a)) {
        if (FR_LONG(b)) {
            if (FR_MONT(a) && FR_MONT(b)) set_type(r, T_MONT_LONG);
            else if (FR_MONT(a) || FR_MONT(b)) set_type(r, T_LONG);
            else {
                /* both normal: a b / R, then times R^3 / R: a b R */
                set_type(r, T_MONT_LONG);
                f1m_mul(c, a + 8, b + 8, r + 8);
                f1m_mul(c, c->mem + 704, r + 8, r + 8);
                return;
            }
        } else {
            fr_to_montgomery(c, b);
            set_type(r, FR_MONT(a) ? T_MONT_LONG : T_LONG);
        }
    } else if (FR_LONG(b)) {
        fr_to_montgomery(c, a);
        set_type(r, FR_MONT(b) ? T_MONT_LONG : T_LONG);
    } else {
        store_short_or_long(c, r, (int64_t)ld_s32(a) * ld_s32(b));
        return;
    }
    f1m_mul(c, a + 8, b + 8, r + 8);
}

/* the tail of Fr_eqR once the first operand or the second is long and the
 * other made long: Montgomery against Montgomery as they are, else both
 * normal */
static int eq_long(const fr_ctx *c, u8 *a, u8 *b)
{
    if (FR_MONT(a)) {
        if (!FR_MONT(b)) fr_to_normal(c, a);
    } else if (FR_MONT(b)) {
        fr_to_normal(c, b);
    }
    return cmp256_at(a + 8, b + 8) == 0;
}

static void make_long(const fr_ctx *c, u8 *p)
{
    if (!FR_LONG(p)) {
        raw_copy_s2l(c, p + 8, ld_s32(p));
        set_type(p, T_LONG);
    }
}

static int fr_eq_r(const fr_ctx *c, u8 *a, u8 *b)
{
    if (FR_LONG(a)) {
        make_long(c, b);
        return eq_long(c, a, b);
    }
    if (FR_LONG(b)) {
        make_long(c, a);
        return eq_long(c, a, b);
    }
    return ld_u32(a) == ld_u32(b);
}

/* the tail of Fr_gtR: both normal, then by sign ((q-1)/2 and below
 * positive), then as integers */
static int gt_long(const fr_ctx *c, u8 *a, u8 *b)
{
    fr_to_normal(c, a);
    fr_to_normal(c, b);
    if (fr_is_negative(c, a)) return fr_is_negative(c, b) ? cmp256_at(a + 8, b + 8) > 0 : 0;
    return fr_is_negative(c, b) ? 1 : cmp256_at(a + 8, b + 8) > 0;
}

static int fr_gt_r(const fr_ctx *c, u8 *a, u8 *b)
{
    if (FR_LONG(a)) {
        make_long(c, b);
        return gt_long(c, a, b);
    }
    if (FR_LONG(b)) {
        make_long(c, a);
        return gt_long(c, a, b);
    }
    return ld_s32(a) > ld_s32(b);
}

/* Two long normal values' order, -1, 0, 1: by sign (gt_long's test),
 * then as integers */
static int long_order(const fr_ctx *c, const u8 *a, const u8 *b)
{
    int nx = long_negative(c, a), ny = long_negative(c, b);
    return nx != ny ? ny - nx : cmp256_at(a + 8, b + 8);
}

/* Fr_gt .. Fr_leq's order of a and b, -1, 0, 1: circom's helpers ask
 * Fr_eqR, then Fr_gtR when not equal, each converting operands in place.
 * Two long operands (most of a SHA-256 witness's comparisons: its loop
 * counters) take the same conversions here, then one comparison: Fr_eqR
 * converts one Montgomery operand of two to normal, and compares two
 * Montgomery ones as they are (Fr_gtR then converts both). c by value,
 * as fr_to_int_any's: its callers then store no context for the call. */
static int fr_order(fr_ctx c, u8 *a, u8 *b)
{
    if (FR_LONG(a) && FR_LONG(b)) {
        int both_mont = FR_MONT(a) && FR_MONT(b);
        if (both_mont && cmp256_at(a + 8, b + 8) == 0) return 0;
        fr_to_normal(&c, a);
        fr_to_normal(&c, b);
        int o = long_order(&c, a, b);
        return both_mont ? (o > 0 ? 1 : -1) : o;
    }
    if (fr_eq_r(&c, a, b)) return 0;
    return fr_gt_r(&c, a, b) ? 1 : -1;
}

/* fr_order answered inline for two long normal operands whose top words
 * are below (q-1)/2's, so neither is negative: their order as integers,
 * with nothing to convert (fr_order's path for them, less its call and
 * saved registers; two thirds of a SHA-256 witness's comparisons: loop
 * counters against their bounds) */
static inline __attribute__((always_inline)) int fr_compare(const fr_ctx *c, u8 *a, u8 *b)
{
    uint64_t half = ld64(c->mem + FR_HALF + 24);
    if ((a[7] & b[7] & 0x80) && !((a[7] | b[7]) & 0x40) && ld64(a + 32) < half && ld64(b + 32) < half)
        return cmp256_at(a + 8, b + 8);
    return fr_order(*c, a, b);
}

/* Fr_eq .. Fr_leq: 0 or 1 as an i64 at r (a short value, type 0) */
static void store_bool(u8 *r, int v)
{
    uint64_t w = v ? 1 : 0;
    memcpy(r, &w, 8);
}

/* Fr_rawshr: a made normal (long), or long (a negative short), then its
 * value shifted right by n (below Fr_shr's bound) into r's, r long;
 * a non-negative short one's i32 shifted (0 from 32 bits on), r short */
static void raw_shr(const fr_ctx *c, u8 *r, u8 *a, uint32_t n)
{
    if (FR_LONG(a)) {
        fr_to_normal(c, a);
    } else if (ld_s32(a) < 0) {
        make_long(c, a);
    } else {
        st_u32(r, n < 32 ? ld_u32(a) >> n : 0);
        set_type(r, T_SHORT);
        return;
    }
    uint64_t v[4], w[4];
    load256(v, a + 8);
    uint32_t k = n / 64, s = n % 64;
    _Pragma("GCC unroll 4") for (uint32_t j = 0; j < 4; j++) {
        uint64_t lo = j + k < 4 ? v[j + k] >> s : 0;
        uint64_t hi = s && j + k + 1 < 4 ? v[j + k + 1] << (64 - s) : 0;
        w[j] = lo | hi;
    }
    store256(r + 8, w);
    set_type(r, T_LONG);
}

/* Fr_shr: b below the bound at 88 (Fr_lt into the scratch element at 8,
 * its operands converted as that makes them) shifts a by b's int, else r's
 * first 32 bytes are zeroed (Fr_int_zero on the element). A negative b
 * (a left shift) is declined once Fr_isNegative made it normal, as the
 * wasm's first step then finds it. */
static int fr_shr(const fr_ctx *c, u8 *r, u8 *a, u8 *b)
{
    if (fr_is_negative(c, b)) return 0;
    int below = fr_compare(c, b, c->mem + FR_SHR_BOUND) < 0;
    store_bool(c->mem + 8, below);
    if (below) raw_shr(c, r, a, fr_to_int(c, b));
    else memset(r, 0, 32);
    return 1;
}

/* Fr_copy's 40 bytes through registers, all loaded before any store: a
 * memmove of them is a call, and a byte array between kept a copy on the
 * stack */
static inline void copy_element(u8 *r, const u8 *a)
{
    uint64_t w[FR_BYTES / 8];
    _Pragma("GCC unroll 5") for (unsigned j = 0; j < FR_BYTES / 8; j++) w[j] = ld64(a + 8 * j);
    _Pragma("GCC unroll 5") for (unsigned j = 0; j < FR_BYTES / 8; j++) st64(r + 8 * j, w[j]);
}

