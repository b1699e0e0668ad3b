/* Whether this CPU runs the BMI2/ADX multiply of mont_x86_64.S: decided once
 * at load time from cpuid (leaf 7: EBX bit 8 = BMI2, bit 19 = ADX).
 * CUZK_NO_ASM=1 in the environment forces the portable C path. */
#include "ff/mont.h"

#if MONT_HAVE_ASM
#include <cpuid.h>
#include <stdlib.h>

int mont_asm_enabled;

__attribute__((constructor)) static void mont_detect_cpu(void)
{
    unsigned eax, ebx, ecx, edx;
    const char *off = getenv("CUZK_NO_ASM");
    if (off && *off && *off != '0')
        return;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        mont_asm_enabled = (ebx >> 8 & 1) && (ebx >> 19 & 1);
}
#endif
