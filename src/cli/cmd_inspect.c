/* cuzk r1cs info and cuzk wtns export json: what snarkjs's commands of the
 * same names print of a circuit and write of a witness. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "codec/decimal.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "util/err.h"
#include "util/file.h"

/* snarkjs's names of the curves (ffjavascript's curve.name) */
static const char *const info_curve_name[CUZK_N_CURVES] = {
    [CUZK_CURVE_BN254] = "bn-128",
    [CUZK_CURVE_BLS12_381] = "bls12-381",
};

static int run_r1cs_info(int argc, char **argv)
{
    static const struct option opts[] = {{0, 0, 0, 0}};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_r1cs_info, opts, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 1)
        return cli_usage_error(&cli_cmd_r1cs_info, "expected 1 file argument, got %d", argc - first);
    cuzk_r1cs r;
    cuzk_error err = {0};
    if (cuzk_r1cs_read(&r, argv[first], &err))
        return cli_report("reading the r1cs", &err);
    printf("Curve: %s\n# of Wires: %u\n# of Constraints: %u\n# of Private Inputs: %u\n# of Public Inputs: %u\n"
           "# of Labels: %llu\n# of Outputs: %u\n",
           info_curve_name[r.curve], r.n_wires, r.n_constraints, r.n_prv_in, r.n_pub_in,
           (unsigned long long)r.n_labels, r.n_pub_out);
    cuzk_r1cs_free(&r);
    return CLI_OK;
}

/* The values as snarkjs writes them (JSON.stringify(values, null, 1) of
 * decimal strings): one per line after a space, no newline at the end. */
static int write_wtns_json(const cuzk_wtns *w, FILE *f)
{
    char dec[80];
    if (fputc('[', f) == EOF)
        return -1;
    for (uint32_t i = 0; i < w->n_witness; i++) {
        cuzk_dec_format(w->values + 4 * (size_t)i, 4, dec, sizeof dec);
        if (fprintf(f, "%s\n \"%s\"", i ? "," : "", dec) < 0)
            return -1;
    }
    return fputs(w->n_witness ? "\n]" : "]", f) == EOF ? -1 : 0;
}

static int run_wtns_export_json(int argc, char **argv)
{
    static const struct option opts[] = {{0, 0, 0, 0}};
    cli_common common;
    int first, rc = cli_parse(argc, argv, &cli_cmd_wtns_export_json, opts, NULL, NULL, &common, &first);
    if (rc)
        return rc > 0 ? CLI_OK : CLI_USAGE;
    if (argc - first != 2)
        return cli_usage_error(&cli_cmd_wtns_export_json, "expected 2 file arguments, got %d", argc - first);
    cuzk_wtns w;
    cuzk_error err = {0};
    if (cuzk_wtns_read(&w, argv[first], &err))
        return cli_report("reading the witness", &err);
    cuzk_outfile out;
    if (!(rc = cuzk_outfile_open(&out, argv[first + 1], &err))) {
        if (write_wtns_json(&w, out.f)) {
            cuzk_outfile_abort(&out);
            rc = cuzk_fail(&err, CUZK_ERR_IO, "%s: write failed", argv[first + 1]);
        } else {
            rc = cuzk_outfile_commit(&out, &err);
        }
    }
    cuzk_wtns_free(&w);
    return rc ? cli_report("writing the witness as JSON", &err) : CLI_OK;
}

const cli_command cli_cmd_r1cs_info = {
    "r1cs info", "ri",
    "cuzk r1cs info <circuit.r1cs>\n"
    "  Prints the circuit's curve and its counts of wires, constraints, private and public inputs,\n"
    "  labels and outputs, as snarkjs r1cs info does.\n",
    run_r1cs_info};

const cli_command cli_cmd_wtns_export_json = {
    "wtns export json", "wej",
    "cuzk wtns export json <witness.wtns> <witness.json>\n"
    "  Writes the witness's values as a JSON array of decimal strings, byte for byte as snarkjs wtns\n"
    "  export json writes it.\n",
    run_wtns_export_json};
