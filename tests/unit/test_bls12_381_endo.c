/* The endomorphism subgroup checks of BLS12-381 (src/ec/bls12_381_endo.c)
 * against the multiplication by r (ec.inc's affine_in_subgroup): multiples
 * of the generators are in; points of the curves found from small x
 * (almost never in the subgroups, the cofactors being large) answer as the
 * slow check does, and some are out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ec/bls12_381_endo.h"
#include "filecoin/zcash.h"

static void test_multiples_are_in(void **state)
{
    (void)state;
    bls12_381_g1_affine g1, p1;
    bls12_381_g2_affine g2, p2;
    bls12_381_g1_generator(&g1);
    bls12_381_g2_generator(&g2);
    for (uint64_t k = 1; k < 2000; k = k * 3 + 1) {
        bls12_381_g1_jac j1;
        bls12_381_g2_jac j2;
        bls12_381_g1_jac_from_affine(&j1, &g1);
        bls12_381_g2_jac_from_affine(&j2, &g2);
        bls12_381_g1_jac_mul_var(&j1, &j1, &k, 64);
        bls12_381_g2_jac_mul_var(&j2, &j2, &k, 64);
        bls12_381_g1_jac_to_affine(&p1, &j1);
        bls12_381_g2_jac_to_affine(&p2, &j2);
        assert_true(bls12_381_g1_in_subgroup_endo(&p1));
        assert_true(bls12_381_g2_in_subgroup_endo(&p2));
    }
}

/* Curve points from small x through the compressed decoder (which sets
 * the point before it checks the subgroup): the two checks agree on each,
 * on each plus the generator, and some points are outside. */
static void test_agrees_with_multiplication_by_r(void **state)
{
    (void)state;
    int out1 = 0, out2 = 0;
    for (int x = 1; x < 60; x++) {
        uint8_t c[FIL_G2_COMPRESSED_BYTES] = {0};
        c[0] = 0x80;
        c[47] = (uint8_t)x;
        bls12_381_g1_affine p, g, s;
        fil_point_status st = fil_g1_decompress(&p, c, 0);
        if (st == FIL_POINT_OK || st == FIL_POINT_NOT_IN_SUBGROUP) {
            int slow = bls12_381_g1_affine_in_subgroup(&p);
            assert_int_equal(bls12_381_g1_in_subgroup_endo(&p), slow);
            out1 += !slow;
            bls12_381_g1_jac j;
            bls12_381_g1_generator(&g);
            bls12_381_g1_jac_from_affine(&j, &g);
            bls12_381_g1_jac_add_affine_var(&j, &j, &p);
            bls12_381_g1_jac_to_affine(&s, &j);
            assert_int_equal(bls12_381_g1_in_subgroup_endo(&s), bls12_381_g1_affine_in_subgroup(&s));
        }
        c[47] = 0; /* x = x (c0) + 0 u */
        c[95] = (uint8_t)x;
        bls12_381_g2_affine q, h, t;
        st = fil_g2_decompress(&q, c, 0);
        if (st == FIL_POINT_OK || st == FIL_POINT_NOT_IN_SUBGROUP) {
            int slow = bls12_381_g2_affine_in_subgroup(&q);
            assert_int_equal(bls12_381_g2_in_subgroup_endo(&q), slow);
            out2 += !slow;
            bls12_381_g2_jac j;
            bls12_381_g2_generator(&h);
            bls12_381_g2_jac_from_affine(&j, &h);
            bls12_381_g2_jac_add_affine_var(&j, &j, &q);
            bls12_381_g2_jac_to_affine(&t, &j);
            assert_int_equal(bls12_381_g2_in_subgroup_endo(&t), bls12_381_g2_affine_in_subgroup(&t));
        }
    }
    assert_true(out1 > 5 && out2 > 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiples_are_in),
        cmocka_unit_test(test_agrees_with_multiplication_by_r),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
