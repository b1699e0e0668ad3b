/* What this CPU runs, decided once at load time from cpuid:
 * - the BMI2/ADX multiply of mont_x86_64.S (leaf 7: EBX bit 8 = BMI2,
 *   bit 19 = ADX); CUZK_NO_ASM=1 in the environment forces the portable C;
 * - the 8-lane AVX-512 IFMA products of mont52.h (leaf 7: EBX bit 16 =
 *   AVX512F, bit 21 = AVX512_IFMA; and the OS saves the ZMM registers:
 *   XCR0 bits 1, 2, 5, 6, 7); CUZK_NO_ASM=1 or CUZK_NO_IFMA=1 turns them off;
 * - the 4-lane AVX2 products of mont29.h, which serve where IFMA does not
 *   (leaf 7: EBX bit 5 = AVX2; XCR0 bits 1, 2: the YMM registers);
 *   CUZK_NO_ASM=1 or CUZK_NO_AVX2=1 turns them off. */
#include "ff/mont.h"
#include "ff/mont29.h"
#include "ff/mont52.h"

#if MONT_HAVE_ASM
#include <cpuid.h>
#include "util/env.h"

int mont_asm_enabled;
#if MONT52_HAVE
int mont52_enabled;
#endif
#if MONT29_HAVE
int mont29_enabled;
#endif

/* XCR0 says which register states the OS saves (xgetbv needs OSXSAVE,
 * leaf 1 ECX bit 27): all of `bits`. */
static int os_saves(unsigned bits)
{
    unsigned eax, ebx, ecx, edx, lo, hi;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1))
        return 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & bits) == bits;
}

__attribute__((constructor)) static void mont_detect_cpu(void)
{
    unsigned eax, ebx, ecx, edx;
    if (cuzk_env_flag("CUZK_NO_ASM") || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return;
    mont_asm_enabled = (ebx >> 8 & 1) && (ebx >> 19 & 1);
#if MONT52_HAVE
    mont52_enabled = (ebx >> 16 & 1) && (ebx >> 21 & 1) && os_saves(0xe6) && !cuzk_env_flag("CUZK_NO_IFMA");
#endif
#if MONT29_HAVE
    mont29_enabled = (ebx >> 5 & 1) && os_saves(0x6) && !cuzk_env_flag("CUZK_NO_AVX2");
#endif
}
#endif
