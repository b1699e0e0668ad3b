#include "codec/curve_id.h"

#include <string.h>

#include "ff/constants.h"

#define CURVE_ROW_(prefix, PREFIX, snarkjs)                                                               \
    [CUZK_CURVE_##PREFIX] = {snarkjs, prefix##_fp_MODULUS, prefix##_fr_MODULUS, PREFIX##_FP_LIMBS},
static const struct {
    const char *name;
    const uint64_t *q, *r;
    uint32_t q_words;
} curves[CUZK_N_CURVES] = {CUZK_CURVES(CURVE_ROW_)};
#define N_CURVES CUZK_N_CURVES

#define CURVE_SIZES_(prefix, PREFIX, snarkjs)                                                             \
    _Static_assert(PREFIX##_FR_LIMBS == CUZK_R_WORDS, #prefix ": scalar fields are 4 words");            \
    _Static_assert(PREFIX##_FP_LIMBS <= CUZK_MAX_Q_WORDS, #prefix ": q fits");
CUZK_CURVES(CURVE_SIZES_)

int cuzk_curve_valid(cuzk_curve_id curve) { return (unsigned)curve < N_CURVES; }

static int prime_equals(const uint8_t *le, uint32_t n8, const uint64_t *m, uint32_t words)
{
    if (n8 != 8 * words) return 0;
    for (uint32_t i = 0; i < n8; i++)
        if (le[i] != (uint8_t)(m[i / 8] >> (8 * (i % 8)))) return 0;
    return 1;
}

int cuzk_curve_from_prime(const uint8_t *prime_le, uint32_t n8, int is_base_field, cuzk_curve_id *out)
{
    if (!prime_le) return CUZK_ERR_ARG;
    for (unsigned c = 0; c < N_CURVES; c++) {
        const uint64_t *m = is_base_field ? curves[c].q : curves[c].r;
        uint32_t words = is_base_field ? curves[c].q_words : CUZK_R_WORDS;
        if (prime_equals(prime_le, n8, m, words)) {
            *out = (cuzk_curve_id)c;
            return CUZK_OK;
        }
    }
    return CUZK_ERR_ARG;
}

const char *cuzk_curve_snarkjs_name(cuzk_curve_id curve)
{
    return cuzk_curve_valid(curve) ? curves[curve].name : "unknown";
}

int cuzk_curve_from_name(const char *name, cuzk_curve_id *out)
{
    static const struct {
        const char *norm;
        cuzk_curve_id curve;
    } names[] = {
        {"BN128", CUZK_CURVE_BN254},
        {"BN254", CUZK_CURVE_BN254},
        {"ALTBN128", CUZK_CURVE_BN254},
        {"BLS12381", CUZK_CURVE_BLS12_381},
    };
    char norm[16];
    size_t n = 0;
    if (!name) return CUZK_ERR_ARG;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) continue; /* ASCII, as snarkjs' regex */
        if (n + 1 >= sizeof norm) return CUZK_ERR_ARG;
        norm[n++] = c;
    }
    norm[n] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(norm, names[i].norm) == 0) {
            *out = names[i].curve;
            return CUZK_OK;
        }
    }
    return CUZK_ERR_ARG;
}

const uint64_t *cuzk_curve_q(cuzk_curve_id curve) { return cuzk_curve_valid(curve) ? curves[curve].q : NULL; }
const uint64_t *cuzk_curve_r(cuzk_curve_id curve) { return cuzk_curve_valid(curve) ? curves[curve].r : NULL; }
uint32_t cuzk_curve_q_words(cuzk_curve_id curve) { return cuzk_curve_valid(curve) ? curves[curve].q_words : 0; }

int cuzk_words_lt(const uint64_t *a, const uint64_t *m, uint32_t n)
{
    for (uint32_t i = n; i-- > 0;)
        if (a[i] != m[i]) return a[i] < m[i];
    return 0;
}
