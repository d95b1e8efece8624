/*
 * Fuzzes the JSON run reader: kl_run_parse (report/run.c) over the strict JSON
 * parser kl_json_parse (formats/json.c), the input being the file's text. A run
 * that parses is then read as `kladder report` and `compare` read it: the roofs
 * (from the run, its own rows for a peak run, else the ceiling cache, here an
 * empty directory), every row's metric, value and unit, and the params line.
 * A fleet's file (fleet/fleet.h) goes through kl_fleet_parse the same way: its
 * members' runs, the summary across them, the table and CSV (to /dev/null).
 * Seeds: corpus/fuzz_run_json/, reports written by `kladder ... --json` (one a
 * fleet's, `--device all` on PoCL's two devices).
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include "fleet/fleet.h"
#include "report/run.h"

static FILE *null_out;
static struct kl_fleet fleet;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("KLADDER_CACHE_DIR", fuzz_dir(), 1);
    null_out = fopen("/dev/null", "w");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct kl_run run;
    char err[1024], params[512];
    if (kl_run_parse(&run, (const char *)data, size, "fuzz/run.json", err, sizeof err) == 0) {
        kl_run_find_ceilings(&run);
        for (int i = 0; i < run.nrows; i++) {
            const struct kl_run_row *r = &run.rows[i];
            enum kl_metric m = kl_run_metric(&run, r);
            (void)kl_run_value(&run, r, m);
            (void)kl_run_unit(&run, m);
            (void)kl_run_precision_peak(&run, r->precision, r->tensor);
        }
        for (const char *const *p = kl_run_precisions; *p; p++) {
            const struct kl_run_row *best, *peer;
            (void)kl_run_fastest(&run, *p, &best, &peer);
        }
        (void)kl_run_compute_peak(&run);
        kl_run_params_text(&run, params, sizeof params);
    }
    kl_run_free(&run);
    if (kl_fleet_parse(&fleet, (const char *)data, size, "fuzz/fleet.json", err, sizeof err) == 0) {
        kl_fleet_table(&fleet, null_out);
        kl_fleet_csv(&fleet, null_out);
        kl_fleet_free(&fleet);
    }
    return 0;
}
