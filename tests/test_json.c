/* The strict JSON reader (formats/json) and the run reader (report/run): what
 * they accept, what they refuse, and where they say the problem is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fleet/fleet.h"
#include "formats/json.h"
#include "report/run.h"

static struct kl_json *parse(const char *text, char *err, size_t n)
{
    return kl_json_parse(text, strlen(text), err, n);
}

/* text must be refused with a message containing want. */
static void refused(const char *text, const char *want)
{
    char err[512];
    struct kl_json *v = parse(text, err, sizeof err);
    CHECK(v == NULL, "accepted %s", text);
    CHECK(v != NULL || strstr(err, want), "refusing %s said \"%s\", wanted \"%s\"", text, err,
          want);
    kl_json_free(v);
}

static void test_values(void)
{
    char err[512];
    struct kl_json *v = parse(" {\"a\": [1, -2.5e3, 0, 0.125, true, false, null],\n"
                              "  \"s\": \"x\\n\\\"\\u00e9\\ud83d\\ude00/\\/\", \"o\": {}} ",
                              err, sizeof err);
    CHECK(v && v->type == KL_JSON_OBJECT && v->count == 3, "object: %s", err);
    if (!v)
        return;
    const struct kl_json *a = kl_json_get(v, "a"), *s = kl_json_get(v, "s"),
                         *o = kl_json_get(v, "o");
    CHECK(a && a->type == KL_JSON_ARRAY && a->count == 7, "array");
    CHECK(a && a->items[1]->number == -2500 && a->items[3]->number == 0.125, "numbers");
    CHECK(a && a->items[4]->boolean == 1 && a->items[5]->type == KL_JSON_BOOL &&
              a->items[6]->type == KL_JSON_NULL,
          "literals");
    CHECK(s && strcmp(s->string, "x\n\"\xc3\xa9\xf0\x9f\x98\x80//") == 0, "escapes: %s",
          s ? s->string : "(none)");
    CHECK(o && o->type == KL_JSON_OBJECT && o->count == 0, "empty object");
    CHECK(s && s->line == 2 && s->col == 8, "position of \"s\": %d:%d", s ? s->line : 0,
          s ? s->col : 0);
    CHECK(kl_json_get(v, "nope") == NULL && kl_json_get(a, "a") == NULL, "get");
    kl_json_free(v);
    v = parse("[[[[]]], \"\xe2\x82\xac\"]", err, sizeof err);
    CHECK(v && v->count == 2, "nested arrays, raw UTF-8: %s", err);
    kl_json_free(v);
    v = parse("1e308", err, sizeof err);
    CHECK(v && v->number == 1e308, "1e308");
    kl_json_free(v);
}

static void test_refused(void)
{
    refused("", "the file is empty");
    refused("  \n ", "the file is empty");
    refused("{\"a\": 1,}", "no trailing commas");
    refused("[1, 2,]", "no trailing commas");
    refused("[1 2]", "line 1, column 4: expected ',' or ']', found '2'");
    refused("{\"a\" 1}", "expected ':' after the member name");
    refused("{a: 1}", "a member name in double quotes");
    refused("{\"a\": 1, \"a\": 2}", "the member \"a\" appears twice");
    refused("[01]", "may not start with 0");
    refused("[1.]", "a digit after the decimal point");
    refused("[1e]", "a digit in the exponent");
    refused("[-]", "expected a digit");
    refused("[.5]", "found '.'");
    refused("[1e999]", "beyond the range of a double");
    refused("[NaN]", "found 'N'");
    refused("[tru]", "found 't'");
    refused("\"abc", "the file ends inside this string (is it truncated?)");
    refused("{\"a\": [1, 2", "line 1, column 12: the file ends where ',' or ']' was expected");
    refused("{\"a\":\n  {\"b\": ", "line 2, column 9: the file ends where a value was expected");
    refused("\"a\tb\"", "a control character (0x09)");
    refused("\"\\x\"", "unknown escape \\x");
    refused("\"\\u12\"", "four hexadecimal digits");
    refused("\"\\ud800\"", "half of a surrogate pair");
    refused("\"\\udc00x\"", "half of a surrogate pair");
    refused("\"\\u0000\"", "NUL");
    refused("\"\xff\"", "invalid UTF-8");
    refused("\"\xc0\xaf\"", "invalid UTF-8");     /* overlong */
    refused("\"\xed\xa0\x80\"", "invalid UTF-8"); /* a surrogate in UTF-8 */
    refused("{} {}", "'{' after the end of the JSON value");
    refused("// c\n{}", "found '/'");
    refused("\x01", "found byte 0x01");
    /* Nesting past the limit is refused, not a stack overflow. */
    char deep[200];
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    refused(deep, "nested more than 64 deep");
}

/* A valid run, then the same with one thing broken. */
static const char run_text[] =
    "{\"schema_version\": 1, \"workload\": \"gemm\",\n"
    " \"device\": {\"name\": \"D\", \"vendor\": \"V\", \"platform\": \"P\", \"version\": \"1\","
    " \"driver\": \"2\", \"type\": \"GPU\", \"compute_units\": 1, \"max_clock_mhz\": 1,"
    " \"global_mem_bytes\": 1, \"local_mem_bytes\": 1},\n"
    " \"params\": {\"M\": 2, \"N\": 2, \"K\": 2, \"type\": \"float\", \"seed\": 1},\n"
    " \"flops_per_launch\": 16, \"bytes_per_launch\": 48, \"reference\": \"r\", \"ceilings\": \"\","
    " \"ceiling_values\": null,\n"
    " \"protocol\": {\"warmup\": 0, \"min_repeats\": 1, \"min_time_s\": 0, \"max_repeats\": 1},\n"
    " \"results\": [\n"
    "  {\"rung\": \"01\", \"config\": \"\", \"status\": \"verified\", \"summary\": \"s\","
    " \"on_host\": false, \"peer\": false, \"median_s\": 2e-6, \"min_s\": 1e-6, \"max_s\": 3e-6,"
    " \"repeats\": 3, \"gflops\": 8, \"gbps\": 24, \"pct_ceiling\": null, \"flops\": 16,"
    " \"bytes\": 48, \"x\": null, \"speedup_first\": 1, \"speedup_host\": null,"
    " \"total_s\": null, \"build_s\": null, \"build_options\": \"\", \"note\": \"\"}]"
    ",\n \"provenance\": {\"kladder_version\": \"0\", \"backend\": \"opencl\", \"driver\": \"2\","
    " \"date\": \"d\"}}\n";

/* run_text with old replaced by new must be refused with want in the message. */
static void run_refused(const char *old, const char *new, const char *want)
{
    char text[sizeof run_text + 256], err[1024];
    const char *at = strstr(run_text, old);
    struct kl_run run;
    CHECK(at != NULL, "%s is not in the sample run", old);
    if (!at)
        return;
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - run_text), run_text, new, at + strlen(old));
    int rc = kl_run_parse(&run, text, strlen(text), "x.json", err, sizeof err);
    CHECK(rc != 0, "accepted a run with %s", new);
    CHECK(rc == 0 || (strstr(err, want) && strncmp(err, "x.json: ", 8) == 0),
          "a run with %s: \"%s\", wanted \"%s\"", new, err, want);
    kl_run_free(&run);
}

/* The sample run as version 2: its row with the machine's fields, read back. */
static void test_run_v2(void)
{
    static const char machine[] =
        ", \"bound\": \"latency\", \"resources\": [{\"regs\": 48, \"private_bytes\": 0, "
        "\"local_static\": 0, \"local_dynamic\": 86240, \"threads\": 128, \"max_threads\": 128, "
        "\"threads_multiple\": 32, \"groups_per_cu\": 2, "
        "\"occupancy\": 0.125, \"limiter\": \"shared\", \"note\": \"\"}], \"resources_note\": "
        "\"\", \"clocks\": {\"sm_mhz\": 1980, \"sm_mhz_min\": 1965, \"mem_mhz\": 2619}, "
        "\"power_w\": 412.5, \"power_w_max\": 430, \"window_s\": 1.2, \"energy_j\": 0.05, "
        "\"gflops_per_j\": 71, \"gbps_per_j\": null, \"clock_events\": [\"sw_power_cap\"], "
        "\"capped\": true, \"machine_note\": \"\", \"samples\": [1e-6, 2e-6, 3e-6]}]";
    char text[sizeof run_text + sizeof machine], err[1024];
    const char *v = strstr(run_text, "\"schema_version\": 1"), *end = strstr(run_text, "}]");
    struct kl_run run;
    if (!v || !end)
        return;
    snprintf(text, sizeof text, "%.*s\"schema_version\": 2%.*s%s%s", (int)(v - run_text),
             run_text, (int)(end - v - 19), v + 19, machine, end + 2);
    int rc = kl_run_parse(&run, text, strlen(text), "v2.json", err, sizeof err);
    CHECK(rc == 0, "version 2 run: %s", err);
    if (rc == 0) {
        const struct kl_run_row *r = &run.rows[0];
        CHECK(r->bound && strcmp(r->bound, "latency") == 0 && r->nkernels == 1 && r->regs == 48 &&
                  r->threads == 128 && r->groups_per_cu == 2 && r->occupancy == 0.125 &&
                  r->local_bytes == 86240 && r->limiter && strcmp(r->limiter, "shared") == 0,
              "version 2 resources read back");
        CHECK(r->sm_mhz == 1980 && r->sm_mhz_min == 1965 && r->watts == 412.5 &&
                  r->energy_j == 0.05 && r->gflops_per_j == 71 && isnan(r->gbps_per_j) && r->capped,
              "version 2 clocks, power and energy read back");
    }
    kl_run_free(&run);
    /* A version 1 row reads as unknown machine. */
    rc = kl_run_parse(&run, run_text, strlen(run_text), "v1.json", err, sizeof err);
    CHECK(rc == 0 && !run.rows[0].bound && run.rows[0].regs == -1 && isnan(run.rows[0].sm_mhz),
          "version 1 run has no machine: %s", err);
    kl_run_free(&run);
}

/* A run of FP8 rows: a rung whose sums span `span` elements of K at 1000 GFLOP/s, beside
   cuBLASLt's promoted sums (span 128) at 1050 and, where fast, its fast accumulation (span K)
   at 1150. The name of the peer kl_run_fastest holds the rung to, or "" where none. */
static const char *fp8_peer(int span, int fast, char *name, size_t n)
{
    static const char head[] =
        "{\"schema_version\": 1, \"workload\": \"gemm\", \"device\": {\"name\": \"D\", "
        "\"vendor\": \"V\", \"platform\": \"P\", \"version\": \"1\", \"driver\": \"2\", "
        "\"type\": \"GPU\", \"compute_units\": 1, \"max_clock_mhz\": 1, \"global_mem_bytes\": "
        "1, \"local_mem_bytes\": 1}, \"params\": {\"M\": 2, \"N\": 2, \"K\": 16384, \"type\": "
        "\"fp8\", \"seed\": 1}, \"flops_per_launch\": 16, \"bytes_per_launch\": 48, "
        "\"reference\": \"r\", \"ceilings\": \"\", \"ceiling_values\": null, \"protocol\": "
        "{\"warmup\": 0, \"min_repeats\": 1, \"min_time_s\": 0, \"max_repeats\": 1}, "
        "\"results\": [";
    static const char row[] =
        "{\"rung\": \"%s\", \"config\": \"\", \"status\": \"verified\", \"summary\": \"s\", "
        "\"on_host\": false, \"peer\": %s, \"median_s\": 1, \"min_s\": 1, \"max_s\": 1, "
        "\"repeats\": 1, \"gflops\": %d, \"gbps\": 1, \"pct_ceiling\": null, \"flops\": 1, "
        "\"bytes\": 1, \"x\": null, \"speedup_first\": 1, \"speedup_host\": null, "
        "\"total_s\": null, \"build_s\": null, \"build_options\": \"\", \"note\": \"\", "
        "\"precision\": \"fp8\", \"sum_span\": %d}";
    char text[4096], err[512];
    int at = snprintf(text, sizeof text, "%s", head);
    at += snprintf(text + at, sizeof text - (size_t)at, row, "20_wgmma", "false", 1000, span);
    at += snprintf(text + at, sizeof text - (size_t)at, ", ");
    at += snprintf(text + at, sizeof text - (size_t)at, row, "peer:cublaslt", "true", 1050, 128);
    if (fast) {
        at += snprintf(text + at, sizeof text - (size_t)at, ", ");
        at += snprintf(text + at, sizeof text - (size_t)at, row, "peer:cublaslt_fast", "true", 1150,
                       16384);
    }
    snprintf(text + at, sizeof text - (size_t)at,
             "], \"provenance\": {\"kladder_version\": \"0\", \"backend\": \"cuda\", "
             "\"driver\": \"2\", \"date\": \"d\"}}");
    struct kl_run run;
    const struct kl_run_row *best = NULL, *peer = NULL;
    snprintf(name, n, "unread");
    if (kl_run_parse(&run, text, strlen(text), "fp8.json", err, sizeof err) != 0) {
        CHECK(0, "FP8 run: %s", err);
        return name;
    }
    int found = kl_run_fastest(&run, "fp8", &best, &peer);
    snprintf(name, n, "%s", found && best && peer ? peer->rung : "");
    kl_run_free(&run);
    return name;
}

/* FP8 rows are held to a peer of their own sums, else a coarser one, never a finer one. */
static void test_fp8_peer(void)
{
    char name[64];
    CHECK(strcmp(fp8_peer(128, 1, name, sizeof name), "peer:cublaslt") == 0,
          "sums promoted every 128 against cuBLASLt's promoted sums, not its faster fast "
          "accumulation: %s",
          name);
    CHECK(strcmp(fp8_peer(16384, 1, name, sizeof name), "peer:cublaslt_fast") == 0,
          "fast accumulation against fast accumulation: %s", name);
    CHECK(strcmp(fp8_peer(32, 1, name, sizeof name), "peer:cublaslt_fast") == 0,
          "finer sums than any peer's: the fastest coarser peer: %s", name);
    CHECK(strcmp(fp8_peer(16384, 0, name, sizeof name), "") == 0,
          "fast accumulation is not held to a finer peer alone: %s", name);
}

static void test_run(void)
{
    char err[1024];
    struct kl_run run;
    int rc = kl_run_parse(&run, run_text, strlen(run_text), "dir/x.json", err, sizeof err);
    CHECK(rc == 0, "sample run: %s", err);
    if (rc == 0) {
        CHECK(run.nrows == 1 && run.rows[0].timed && run.rows[0].median_s == 2e-6, "row");
        CHECK(strcmp(run.dir, "dir") == 0, "dir %s", run.dir);
        CHECK(isnan(run.rows[0].x) && !run.sweep, "x null");
        CHECK(kl_run_value(&run, &run.rows[0], KL_METRIC_FLOPS) == 8, "value (the file's gflops)");
        CHECK(kl_run_metric(&run, &run.rows[0]) == KL_METRIC_FLOPS, "metric");
    }
    kl_run_free(&run);
    test_run_v2();
    test_fp8_peer();
    run_refused("\"schema_version\": 1", "\"schema_version\": 4", "schema_version 4 is newer");
    run_refused("\"schema_version\": 1", "\"schema_version\": 0", "whole number from 1");
    run_refused("\"schema_version\": 1,", "",
                "no schema_version: a run report from a kladder older");
    run_refused("\"schema_version\": 1, \"workload\": \"gemm\",", "\"x\": 1,",
                "not a kladder run report");
    run_refused(
        "\"median_s\": 2e-6", "\"median_s\": \"fast\"",
        "results[0] \"median_s\" should be a number or null, but is a string (line 7, column 115)");
    run_refused("\"median_s\": 2e-6", "\"median_s\": null",
                "results[0] (01) is verified but has no");
    run_refused("\"status\": \"verified\"", "\"status\": \"great\"", "status \"great\"");
    run_refused("\"results\": [", "\"results\": {\"a\": [", "");
    run_refused(" \"results\"", " \"resultz\"", "has no \"results\"");
    run_refused("\"name\": \"D\", ", "", "device has no \"name\"");
    run_refused("\"ceiling_values\": null", "\"ceiling_values\": 3",
                "\"ceiling_values\" should be an object");
    run_refused("{\"schema_version\"", "[{\"schema_version\"", "");
    /* A whole file that is not an object. */
    rc = kl_run_parse(&run, "[1]", 3, "a.json", err, sizeof err);
    CHECK(rc != 0 && strstr(err, "a.json: not a kladder run report: the file holds an array"),
          "array: %s", err);
    kl_run_free(&run);
    rc = kl_run_load(&run, "/nonexistent/run.json", err, sizeof err);
    CHECK(rc != 0 && strstr(err, "/nonexistent/run.json") && strstr(err, "No such file"),
          "missing: %s", err);
    kl_run_free(&run);
}

/* run_text with each (old, new) pair of the list applied once (malloc'd; NULL if short). */
static char *run_with(const char *const *pairs, int n)
{
    char *text = malloc(sizeof run_text);
    if (text)
        memcpy(text, run_text, sizeof run_text);
    for (int i = 0; text && i < n; i++) {
        const char *at = strstr(text, pairs[2 * i]);
        size_t len = strlen(text) + strlen(pairs[2 * i + 1]) + 1;
        char *next = at ? malloc(len) : NULL;
        CHECK(at != NULL, "%s is not in the sample run", pairs[2 * i]);
        if (next)
            snprintf(next, len, "%.*s%s%s", (int)(at - text), text, pairs[2 * i + 1],
                     at + strlen(pairs[2 * i]));
        free(text);
        text = next;
    }
    return text;
}

/*
 * A fleet's summary row takes its unit from a member that timed the rung:
 * where the first member skipped it (no work, which alone reads as a time),
 * the second's rate is still a rate, not its median time in µs.
 */
static void test_fleet_unit(void)
{
    static const char *const skip[] = {"\"verified\"", "\"skipped\"",   "\"flops\": 16",
                                       "\"flops\": 0", "\"bytes\": 48", "\"bytes\": 0"};
    struct kl_fleet_member m[2] = {{.spec = "opencl:0:0", .rank = -1},
                                   {.spec = "opencl:0:1", .rank = -1}};
    struct kl_fleet f;
    struct kl_err e;
    m[0].json = run_with(skip, 3);
    m[1].json = run_with(NULL, 0);
    if (!m[0].json || !m[1].json || kl_fleet_build(&f, "gemm", m, 2, &e) != KL_OK) {
        CHECK(0, "fleet of a skipped and a timed member: %s", e.msg);
    } else {
        CHECK(f.nrows == 1 && strcmp(f.rows[0].unit, "GFLOP/s") == 0 && f.rows[0].n == 1 &&
                  isnan(f.rows[0].value[0]) && f.rows[0].value[1] == 8,
              "the rung skipped by the first member: unit %s, %d value(s), %g for the second",
              f.nrows ? f.rows[0].unit : "-", f.nrows ? f.rows[0].n : -1,
              f.nrows ? f.rows[0].value[1] : NAN);
        kl_fleet_free(&f);
    }
    free(m[0].json);
    free(m[1].json);
}

int main(void)
{
    test_values();
    test_refused();
    test_run();
    test_fleet_unit();
    return check_summary();
}
