/* Unit tests of user rungs: the geometry's integer expressions and the
 * `kladder:` comment block (core/user_rung.c). */
#include <string.h>

#include "check.h"
#include "core/user_rung.h"

static const char *const names[] = {"M", "N", "WG"};
static const long long values[] = {1000, 7, 64};
static const struct kl_expr_vars vars = {names, values, 3};

static void expect(const char *expr, long long want)
{
    struct kl_err e;
    long long got = -12345;
    enum kl_status st = kl_expr_eval(expr, &vars, &got, &e);
    CHECK(st == KL_OK && got == want, "\"%s\" = %lld (want %lld): %s", expr, got, want,
          st == KL_OK ? "" : e.msg);
}

static void refuse(const char *expr, const char *why)
{
    struct kl_err e;
    long long got;
    e.msg[0] = '\0';
    enum kl_status st = kl_expr_eval(expr, &vars, &got, &e);
    CHECK(st == KL_ERR_ARG && strstr(e.msg, why), "\"%s\" refused with \"%s\": %s", expr, why,
          e.msg);
}

static void test_expressions(void)
{
    expect("42", 42);
    expect("M", 1000);
    expect("1 + 2 * 3", 7);
    expect("(1 + 2) * 3", 9);
    expect("M / WG * WG", 960);
    expect("-7 / 2", -4); /* rounds down, like div_up's complement */
    expect("7 % 3", 1);
    expect("div_up(M, WG)", 16);
    expect("round_up(M, WG)", 1024);
    expect("round_up(N, 8) * div_up(M, 128) ", 64);
    expect("((((N))))", 7);
    expect("- -3", 3);
    refuse("M / (N - 7)", "division by zero");
    refuse("Q + 1", "unknown name \"Q\"");
    refuse("M +", "unexpected end");
    refuse("M M", "unexpected text");
    refuse("(M", "expected ')'");
    refuse("sqrt(M)", "unknown function");
    refuse("div_up(M)", "expected ','");
    refuse("div_up(M, 0)", "positive second argument");
    refuse("9999999999 * 9999999999", "too large");
    refuse("99999999999999999999", "too large");
    char deep[400];
    memset(deep, '(', 200);
    deep[200] = '\0';
    refuse(deep, "nested too deep");
}

static enum kl_status parse(const char *text, struct kl_user_rung *u, struct kl_err *e)
{
    memset(u, 0, sizeof *u);
    e->msg[0] = '\0';
    return kl_user_rung_parse("dir/my_kernel.cl", text, u, e);
}

static void test_block(void)
{
    struct kl_user_rung u;
    struct kl_err e;
    const char *good = "/*\n"
                       " * kladder: workload gemv\n"
                       " * kladder: global round_up(M, WG), S\n"
                       " * kladder: local WG, 1\n"
                       " * kladder: param WG 64 32..1024 multiple 32 pow2 -- work-group size\n"
                       " * kladder: param S 4 1..64\n"
                       " * kladder: layout col\n"
                       " */\n"
                       "// kladder: summary my GEMV\n"
                       "kernel void gemv() {} // kladder: is only read at a line's start\n";
    enum kl_status st = parse(good, &u, &e);
    CHECK(st == KL_OK, "the good block parses: %s", e.msg);
    CHECK(strcmp(u.workload, "gemv") == 0 && strcmp(u.entry, "gemv") == 0 &&
              strcmp(u.name, "my_kernel") == 0 && strcmp(u.summary, "my GEMV") == 0 &&
              strcmp(u.layout, "col") == 0 && u.dims == 2,
          "fields: %s %s %s %s %s %d", u.workload, u.entry, u.name, u.summary, u.layout, u.dims);
    CHECK(kl_param_count(u.params) == 2 && u.params[0].def == 64 && u.params[0].min == 32 &&
              u.params[0].max == 1024 && u.params[0].multiple == 32 && u.params[0].pow2 &&
              strcmp(u.params[0].help, "work-group size") == 0 && u.params[1].def == 4,
          "parameters");
    const char *const sn[] = {"M", "N"};
    const long long sv[] = {1000, 50};
    const int pv[] = {128, 3};
    int dims;
    size_t g[3], l[3];
    st = kl_user_rung_geometry(&u, sn, sv, 2, pv, &dims, g, l, &e);
    CHECK(st == KL_OK && dims == 2 && g[0] == 1024 && g[1] == 3 && l[0] == 128 && l[1] == 1 &&
              g[2] == 1 && l[2] == 1,
          "geometry %zu×%zu / %zu×%zu: %s", g[0], g[1], l[0], l[1], e.msg);
    const int bad_pv[] = {128, 0};
    st = kl_user_rung_geometry(&u, sn, sv, 2, bad_pv, &dims, g, l, &e);
    CHECK(st == KL_ERR_ARG && strstr(e.msg, "positive multiple"), "S=0: %s", e.msg);

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"int x;\n", "missing: workload global local"},
        {"// kladder: workload rowdot\n// kladder: global Y\n", "missing: local"},
        {"// kladder: frob 1\n", ":1: unknown \"kladder: frob\""},
        {"// kladder: workload row dot\n", "takes a workload's name"},
        {"\n// kladder: global 1, 2, 3, 4\n", ":2: \"kladder: global\" takes 1 to 3"},
        {"// kladder: global 1, 2\n// kladder: local 1\n", "as many dimensions"},
        {"// kladder: param WG 64\n", "takes NAME DEFAULT MIN..MAX"},
        {"// kladder: param WG 2000 1..1024\n", "the default within the range"},
        {"// kladder: param WG 48 1..1024 pow2\n", "of its kind"},
        {"// kladder: param WG 50 1..1024 multiple 32\n", "of its kind"},
        {"// kladder: param 9G 1 1..2\n", "takes NAME"},
        {"// kladder: param A 1 1..2\n// kladder: param A 1 1..2\n", "declared twice"},
        {"// kladder: layout diagonal\n", "takes row or col"},
        {"// kladder: entry not-an-identifier\n", "an identifier"},
        {"// kladder: name two words\n", "takes one word"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = parse(bad[i].text, &u, &e);
        CHECK(st == KL_ERR_ARG && strstr(e.msg, bad[i].why), "block %zu refused with \"%s\": %s",
              i, bad[i].why, e.msg);
    }
}

/*
 * As many parameters as a rung may declare beside eight sizes, all of them
 * names the geometry may read: the last parameter and the last size here.
 */
static void test_most_names(void)
{
    struct kl_user_rung u;
    struct kl_err e;
    char text[2048], line[96];
    snprintf(text, sizeof text,
             "// kladder: workload gemv\n// kladder: global P%d * 4, S7\n"
             "// kladder: local P%d, 1\n",
             KL_MAX_PARAMS - 1, KL_MAX_PARAMS - 1);
    for (int i = 0; i < KL_MAX_PARAMS; i++) {
        snprintf(line, sizeof line, "// kladder: param P%d %d 1..1024\n", i, i + 1);
        strncat(text, line, sizeof text - strlen(text) - 1);
    }
    enum kl_status st = parse(text, &u, &e);
    CHECK(st == KL_OK && kl_param_count(u.params) == KL_MAX_PARAMS, "%d parameters: %s",
          KL_MAX_PARAMS, e.msg);
    if (st != KL_OK)
        return;
    const char *const sn[] = {"S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7"};
    const long long sv[] = {1, 2, 3, 4, 5, 6, 7, 8};
    int pv[KL_MAX_PARAMS], dims;
    size_t g[3], l[3];
    for (int i = 0; i < KL_MAX_PARAMS; i++)
        pv[i] = i + 1;
    st = kl_user_rung_geometry(&u, sn, sv, 8, pv, &dims, g, l, &e);
    CHECK(st == KL_OK && g[0] == 4 * KL_MAX_PARAMS && l[0] == KL_MAX_PARAMS && g[1] == 8,
          "geometry of eight sizes and %d parameters %zu×%zu / %zu: %s", KL_MAX_PARAMS, g[0], g[1],
          l[0], e.msg);
    kl_user_rung_free(&u);
}

static void test_load(void)
{
    struct kl_user_rung u;
    struct kl_err e;
    CHECK(kl_user_rung_load("/no/such/file.cl", &u, &e) != KL_OK && strstr(e.msg, "file.cl"),
          "a missing file: %s", e.msg);
    CHECK(kl_user_rung_load(":entry", &u, &e) == KL_ERR_ARG && strstr(e.msg, "FILE:ENTRY"),
          "no file: %s", e.msg);
}

int main(void)
{
    test_expressions();
    test_block();
    test_most_names();
    test_load();
    return check_summary();
}
