/* The folding of circom's copies of constants (src/witness/wasm_copy_lists.c)
 * on text in wasm2c's form: a run becomes one table and one call, in the
 * sites' order; what is not a run of one base with consecutive elements,
 * or is shorter than COPY_LIST_MIN, stays as it was; without the include
 * line the translation is left alone. That a folded circuit computes the
 * same witness is tests/interop/circomlib.sh's (Poseidon, byte for byte
 * against snarkjs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "witness/wasm_copy_lists.h"

/* One copy site as wasm2c writes it, indented by two spaces. */
static void site(char *out, size_t cap, unsigned k, const char *base, unsigned constant)
{
    snprintf(out + strlen(out), cap - strlen(out),
             "  w2c_i0 = %uu;\n  w2c_i1 = 40u;\n  w2c_i0 *= w2c_i1;\n  w2c_i1 = %s;\n  w2c_i0 += w2c_i1;\n"
             "  w2c_i1 = %uu;\n  w2c_Fr_copy(instance, w2c_i0, w2c_i1);\n",
             k, base, constant);
}

static char *fold(const char *text, size_t *lists, size_t *sites)
{
    size_t len = strlen(text);
    char *copy = strdup(text);
    assert_non_null(copy);
    char *out = wasm_fold_copy_lists(copy, &len, lists, sites);
    assert_non_null(out);
    assert_int_equal(strlen(out), len);
    return out;
}

static void test_run_folded_in_order(void **state)
{
    (void)state;
    static char in[8192], unchanged[4096];
    strcpy(in, "#include <string.h>\n#include \"circuit.h\"\nstatic void f(Z_circuit_instance_t* instance) {\n");
    for (unsigned k = 0; k < 9; k++) site(in, sizeof in, 3 + k, "w2c_lvar", 17000000u + 720u * (8 - k));
    /* not part of the run: another base, then a gap in k, then a run too short */
    unchanged[0] = 0;
    site(unchanged, sizeof unchanged, 12, "w2c_other", 5u);
    site(unchanged, sizeof unchanged, 14, "w2c_lvar", 6u);
    for (unsigned k = 0; k < COPY_LIST_MIN - 1; k++) site(unchanged, sizeof unchanged, 20 + k, "w2c_lvar", 7u + k);
    /* an operand temporary as the base: its value is not the base's */
    for (unsigned k = 0; k < COPY_LIST_MIN; k++) site(unchanged, sizeof unchanged, 30 + k, "w2c_i2", 9u);
    strcat(in, unchanged);
    strcat(in, "}\n");

    size_t lists, sites;
    char *out = fold(in, &lists, &sites);
    assert_int_equal(lists, 1);
    assert_int_equal(sites, 9);
    const char *expect =
        "#include <string.h>\n#include \"circuit.h\"\n"
        "static void cuzk_Fr_copy_list(Z_circuit_instance_t*, u32, const u32*, u32);\n"
        "static void f(Z_circuit_instance_t* instance) {\n"
        "  {\n"
        "    static const u32 constants[9] = {\n"
        "      17005760u, 17005040u, 17004320u, 17003600u, 17002880u, 17002160u, 17001440u, 17000720u,\n"
        "      17000000u,\n"
        "    };\n"
        "    cuzk_Fr_copy_list(instance, 3u * 40u + w2c_lvar, constants, 9u);\n"
        "  }\n";
    assert_memory_equal(out, expect, strlen(expect));
    const char *rest = out + strlen(expect);
    assert_memory_equal(rest, unchanged, strlen(unchanged));
    rest += strlen(unchanged);
    assert_true(!strncmp(rest, "}\n\nint cuzk_glue_Fr_copy_list(", strlen("}\n\nint cuzk_glue_Fr_copy_list(")));
    assert_non_null(strstr(rest, "w2c_Fr_copy(instance, dst + k * 40u, src[k]);"));
    free(out);
}

static void test_left_alone(void **state)
{
    (void)state;
    static char in[4096];
    size_t lists, sites, len;
    /* no run */
    strcpy(in, "#include \"circuit.h\"\n");
    site(in, sizeof in, 1, "w2c_lvar", 5u);
    char *copy = strdup(in);
    len = strlen(copy);
    assert_ptr_equal(wasm_fold_copy_lists(copy, &len, &lists, &sites), copy);
    assert_string_equal(copy, in);
    assert_int_equal(lists, 0);
    free(copy);
    /* a run, but no include line for the helper's declaration (or two) */
    for (int includes = 0; includes <= 2; includes += 2) {
        in[0] = 0;
        for (int i = 0; i < includes; i++) strcat(in, "#include \"circuit.h\"\n");
        for (unsigned k = 0; k < 8; k++) site(in, sizeof in, k, "w2c_lvar", 100u + k);
        copy = strdup(in);
        len = strlen(copy);
        assert_ptr_equal(wasm_fold_copy_lists(copy, &len, &lists, &sites), copy);
        assert_string_equal(copy, in);
        assert_int_equal(lists, 0);
        free(copy);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_folded_in_order),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
