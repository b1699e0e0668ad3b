/* Assignment files (contracts in assignment_file.h). */
#include "filecoin/assignment_file.h"

#include <stdlib.h>
#include <string.h>

#include "util/err.h"
#include "util/file.h"

enum { TAG_ZERO, TAG_ONE, TAG_FULL };

static int put(cuzk_outfile *o, const void *p, size_t size, size_t count)
{
    return count && fwrite(p, size, count, o->f) != count ? -1 : 0;
}

static int put_scalars(cuzk_outfile *o, const bls12_381_fr *v, size_t n, int compact)
{
    if (!compact)
        return put(o, v, sizeof *v, n);
    bls12_381_fr one;
    bls12_381_fr_set_one(&one);
    for (size_t i = 0; i < n; i++) {
        const uint8_t tag = bls12_381_fr_is_zero(&v[i]) ? TAG_ZERO
                            : !memcmp(&v[i], &one, sizeof one) ? TAG_ONE
                                                                : TAG_FULL;
        if (put(o, &tag, 1, 1) || (tag == TAG_FULL && put(o, &v[i], sizeof v[i], 1)))
            return -1;
    }
    return 0;
}

int fil_assignment_write(const fil_assignment *as, const char *path, int compact, cuzk_error *err)
{
    cuzk_outfile o;
    int rc = cuzk_outfile_open(&o, path, err);
    if (rc)
        return rc;
    const fil_density *d[3] = {&as->a_aux, &as->b_inp, &as->b_aux};
    const uint64_t fields[FIL_ASSIGNMENT_FIELDS] = {as->a_aux.bit_len, as->a_aux.popcount, as->b_inp.bit_len,
                                                    as->b_inp.popcount, as->b_aux.bit_len, as->b_aux.popcount,
                                                    as->abc_size, as->n_inputs, as->n_aux};
    int bad = put(&o, compact ? "C2ASSIGC" : "C2ASSIGN", 1, 8) || put(&o, fields, 8, FIL_ASSIGNMENT_FIELDS);
    for (int i = 0; i < 3 && !bad; i++)
        bad = put(&o, d[i]->bits, 8, (d[i]->bit_len + 63) / 64);
    const bls12_381_fr *arrays[5] = {as->a, as->b, as->c, as->inputs, as->aux};
    const size_t counts[5] = {as->abc_size, as->abc_size, as->abc_size, as->n_inputs, as->n_aux};
    for (int i = 0; i < 5 && !bad; i++)
        bad = put_scalars(&o, arrays[i], counts[i], compact);
    if (bad) {
        cuzk_outfile_abort(&o);
        return cuzk_fail(err, CUZK_ERR_IO, "%s: write error", path);
    }
    return cuzk_outfile_commit(&o, err);
}
