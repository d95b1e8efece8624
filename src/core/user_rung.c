/*
 * User rungs: reading a kernel file's `kladder:` lines and evaluating the
 * integer expressions of its launch geometry.
 */
#include "core/user_rung.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- integer expressions ------------------------------------------------------ */

#define EXPR_LIMIT (1LL << 62)

struct expr {
    const char *s, *p;
    const struct kl_expr_vars *vars;
    struct kl_err *e;
    enum kl_status st;
    int depth;
};

static long long expr_fail(struct expr *x, const char *what)
{
    if (x->st == KL_OK)
        x->st = kl_fail(x->e, KL_ERR_ARG, "in \"%s\" at column %d: %s", x->s,
                        (int)(x->p - x->s) + 1, what);
    return 0;
}

static void skip_blanks(struct expr *x)
{
    while (*x->p == ' ' || *x->p == '\t')
        x->p++;
}

/*
 * Every value stays within ±2^62: numbers and names are checked, and sums and
 * products are tested before they are computed, so no step overflows a long long.
 */
static long long checked(struct expr *x, long long v)
{
    return v > EXPR_LIMIT || v < -EXPR_LIMIT ? expr_fail(x, "the value is too large") : v;
}

/* a+b, or a failure when it leaves ±2^62. */
static long long plus(struct expr *x, long long a, long long b)
{
    int over = b > 0 ? a > EXPR_LIMIT - b : a < -EXPR_LIMIT - b;
    return over ? expr_fail(x, "the value is too large") : a + b;
}

/* a·b, or a failure when it leaves ±2^62. */
static long long times(struct expr *x, long long a, long long b)
{
    int over = a != 0 && (b > EXPR_LIMIT / llabs(a) || b < -EXPR_LIMIT / llabs(a));
    return over ? expr_fail(x, "the value is too large") : a * b;
}

static long long sum(struct expr *x);

static long long call(struct expr *x, const char *name, size_t n)
{
    long long a, b;
    int up = n == 6 && strncmp(name, "div_up", 6) == 0;
    if (!up && !(n == 8 && strncmp(name, "round_up", 8) == 0))
        return expr_fail(x, "unknown function (div_up and round_up are known)");
    x->p++; /* '(' */
    a = sum(x);
    skip_blanks(x);
    if (*x->p != ',')
        return expr_fail(x, "expected ',' between a function's two arguments");
    x->p++;
    b = sum(x);
    skip_blanks(x);
    if (*x->p != ')')
        return expr_fail(x, "expected ')'");
    x->p++;
    if (x->st != KL_OK)
        return 0;
    if (b <= 0)
        return expr_fail(x, "div_up and round_up need a positive second argument");
    long long q = a >= 0 ? (a + b - 1) / b : -(-a / b);
    return up ? q : times(x, q, b);
}

static long long name_value(struct expr *x)
{
    const char *start = x->p;
    while (isalnum((unsigned char)*x->p) || *x->p == '_')
        x->p++;
    size_t n = (size_t)(x->p - start);
    skip_blanks(x);
    if (*x->p == '(')
        return call(x, start, n);
    for (int i = 0; x->vars && i < x->vars->count; i++)
        if (strlen(x->vars->names[i]) == n && strncmp(x->vars->names[i], start, n) == 0)
            return checked(x, x->vars->values[i]);
    x->p = start;
    if (x->st == KL_OK) {
        x->st = kl_fail(x->e, KL_ERR_ARG, "in \"%s\": unknown name \"%.*s\"; known:", x->s, (int)n,
                        start);
        for (int i = 0; x->vars && i < x->vars->count; i++)
            kl_err_append(x->e, " %s", x->vars->names[i]);
    }
    return 0;
}

static long long atom(struct expr *x)
{
    skip_blanks(x);
    if (++x->depth > 64)
        return expr_fail(x, "nested too deep");
    long long v = 0;
    if (*x->p == '(') {
        x->p++;
        v = sum(x);
        skip_blanks(x);
        if (*x->p != ')')
            return expr_fail(x, "expected ')'");
        x->p++;
    } else if (*x->p == '-' || *x->p == '+') {
        int neg = *x->p++ == '-';
        v = atom(x);
        v = neg ? -v : v;
    } else if (isdigit((unsigned char)*x->p)) {
        while (isdigit((unsigned char)*x->p) && x->st == KL_OK)
            v = v > EXPR_LIMIT / 10 ? expr_fail(x, "the value is too large")
                                    : checked(x, v * 10 + (*x->p++ - '0'));
    } else if (isalpha((unsigned char)*x->p) || *x->p == '_') {
        v = name_value(x);
    } else {
        return expr_fail(x, *x->p ? "expected a number, a name or '('" : "unexpected end");
    }
    x->depth--;
    return v;
}

static long long product(struct expr *x)
{
    long long v = atom(x);
    for (;;) {
        skip_blanks(x);
        char op = *x->p;
        if (x->st != KL_OK || (op != '*' && op != '/' && op != '%'))
            return v;
        x->p++;
        long long w = atom(x);
        if (op == '*')
            v = times(x, v, w);
        else if (w == 0)
            return expr_fail(x, "division by zero");
        else if (op == '/')
            v = v / w - ((v % w != 0) && ((v < 0) != (w < 0))); /* rounds down */
        else
            v = v % w;
    }
}

static long long sum(struct expr *x)
{
    long long v = product(x);
    for (;;) {
        skip_blanks(x);
        char op = *x->p;
        if (x->st != KL_OK || (op != '+' && op != '-'))
            return v;
        x->p++;
        long long w = product(x);
        v = plus(x, v, op == '+' ? w : -w);
    }
}

enum kl_status kl_expr_eval(const char *expr, const struct kl_expr_vars *vars, long long *out,
                            struct kl_err *e)
{
    struct expr x = {expr, expr, vars, e, KL_OK, 0};
    long long v = sum(&x);
    skip_blanks(&x);
    if (x.st == KL_OK && *x.p)
        expr_fail(&x, "unexpected text");
    *out = x.st == KL_OK ? v : 0;
    return x.st;
}

/* ---- the comment block --------------------------------------------------------- */

/* The text after "kladder:" on a comment line (after //, / *, * and blanks), or NULL. */
static const char *directive(const char *line, size_t len)
{
    const char *p = line, *end = line + len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '/' || *p == '*'))
        p++;
    if (p == line || end - p < 8 || strncmp(p, "kladder:", 8) != 0)
        return NULL; /* not behind a comment leader, or not ours */
    return p + 8;
}

/* The word at *p (letters, digits, '_', '.', '-') into w, n bytes; advances *p past blanks. */
static size_t word(const char **p, const char *end, char *w, size_t n)
{
    size_t k = 0;
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    while (*p < end && !isspace((unsigned char)**p)) {
        if (k + 1 < n)
            w[k] = **p;
        k++;
        (*p)++;
    }
    w[k < n ? k : n - 1] = '\0';
    while (*p < end && (**p == ' ' || **p == '\t'))
        (*p)++;
    return k;
}

static int identifier(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

static int strict_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < INT_MIN || v > INT_MAX)
        return 0;
    *out = (int)v;
    return 1;
}

/* The first comma from p on outside parentheses, or NULL where there is none before end. */
static const char *top_comma(const char *p, const char *end)
{
    int depth = 0;
    for (const char *q = p; q < end; q++) {
        depth += (*q == '(') - (*q == ')');
        if (*q == ',' && depth == 0)
            return q;
    }
    return NULL;
}

/* p to stop without blanks at either end: its start, its length in *len. */
static const char *trim(const char *p, const char *stop, size_t *len)
{
    while (p < stop && isspace((unsigned char)*p))
        p++;
    *len = (size_t)(stop - p);
    while (*len && isspace((unsigned char)p[*len - 1]))
        (*len)--;
    return p;
}

/* "E1, E2, E3": 1 to 3 expressions into ex[] (checked when evaluated); the count, or 0. */
static int expressions(const char *p, const char *end, char ex[3][KL_USER_EXPR])
{
    int n = 0;
    while (p < end) {
        const char *comma = top_comma(p, end);
        size_t len;
        const char *start = trim(p, comma ? comma : end, &len);
        if (n == 3 || len == 0 || len >= KL_USER_EXPR)
            return 0;
        snprintf(ex[n++], KL_USER_EXPR, "%.*s", (int)len, start);
        p = comma ? comma + 1 : end;
    }
    return n;
}

/* "NAME DEFAULT MIN..MAX": parameter k's name, default and range; 0 where they are not. */
static int param_head(const char **p, const char *end, struct kl_user_rung *u, int k)
{
    char w[64], *dots;
    struct kl_param_def *d = &u->params[k];
    if (!word(p, end, u->param_name[k], sizeof u->param_name[k]) || !identifier(u->param_name[k]) ||
        strlen(u->param_name[k]) >= sizeof u->param_name[k] - 1)
        return 0;
    word(p, end, w, sizeof w);
    if (!strict_int(w, &d->def))
        return 0;
    word(p, end, w, sizeof w);
    if (!(dots = strstr(w, "..")))
        return 0;
    *dots = '\0';
    if (!strict_int(w, &d->min) || !strict_int(dots + 2, &d->max) || d->min > d->max ||
        d->def < d->min || d->def > d->max)
        return 0;
    return 1;
}

/* "[multiple M] [pow2] [-- help]" after the range, into parameter k; 0 where it is not. */
static int param_tail(const char *p, const char *end, struct kl_user_rung *u, int k)
{
    char w[64];
    struct kl_param_def *d = &u->params[k];
    int mult = 1;
    d->multiple = 1;
    while (p < end) {
        if (end - p >= 2 && strncmp(p, "--", 2) == 0) {
            p += 2;
            while (p < end && isspace((unsigned char)*p))
                p++;
            snprintf(u->param_help[k], sizeof u->param_help[k], "%.*s", (int)(end - p), p);
            break;
        }
        word(&p, end, w, sizeof w);
        if (strcmp(w, "pow2") == 0)
            d->pow2 = 1;
        else if (strcmp(w, "multiple") == 0 && (word(&p, end, w, sizeof w), strict_int(w, &mult)) &&
                 mult >= 1)
            d->multiple = mult;
        else
            return 0;
    }
    return 1;
}

/* "NAME DEFAULT MIN..MAX [multiple M] [pow2] [-- help]" into parameter k of u. */
static int parse_param(const char *p, const char *end, struct kl_user_rung *u, int k)
{
    struct kl_param_def *d = &u->params[k];
    if (!param_head(&p, end, u, k) || !param_tail(p, end, u, k))
        return 0;
    d->name = u->param_name[k];
    d->help = u->param_help[k][0] ? u->param_help[k] : "the kernel's own parameter";
    return d->def % d->multiple == 0 && (!d->pow2 || (d->def > 0 && !(d->def & (d->def - 1))));
}

enum { SEEN_WORKLOAD = 1, SEEN_GLOBAL = 2, SEEN_LOCAL = 4 };

/* One `kladder:` line: where it is, its key, the text after the key (p to end) as val. */
struct line {
    const char *file;
    int lineno;
    const char *key, *p, *end, *val;
};

#define BAD(...) kl_fail(e, KL_ERR_ARG, "%s:%d: " __VA_ARGS__)

static enum kl_status key_workload(const struct line *l, struct kl_user_rung *u, int *seen,
                                   struct kl_err *e)
{
    if (!identifier(l->val) || strlen(l->val) >= sizeof u->workload)
        return BAD("\"kladder: workload\" takes a workload's name", l->file, l->lineno);
    snprintf(u->workload, sizeof u->workload, "%.15s", l->val);
    *seen |= SEEN_WORKLOAD;
    return KL_OK;
}

static enum kl_status key_entry(const struct line *l, struct kl_user_rung *u, int *seen,
                                struct kl_err *e)
{
    (void)seen;
    if (!identifier(l->val) || strlen(l->val) >= sizeof u->entry)
        return BAD("\"kladder: entry\" takes the kernel's name (an identifier)", l->file,
                   l->lineno);
    if (!u->entry[0])
        snprintf(u->entry, sizeof u->entry, "%.63s", l->val);
    return KL_OK;
}

static enum kl_status key_name(const struct line *l, struct kl_user_rung *u, int *seen,
                               struct kl_err *e)
{
    (void)seen;
    if (!l->val[0] || strlen(l->val) >= sizeof u->name || strpbrk(l->val, " \t,=\"\\"))
        return BAD("\"kladder: name\" takes one word (no blanks, commas, '=' or quotes)", l->file,
                   l->lineno);
    snprintf(u->name, sizeof u->name, "%.63s", l->val);
    return KL_OK;
}

static enum kl_status key_layout(const struct line *l, struct kl_user_rung *u, int *seen,
                                 struct kl_err *e)
{
    (void)seen;
    if (strcmp(l->val, "row") != 0 && strcmp(l->val, "col") != 0)
        return BAD("\"kladder: layout\" takes row or col", l->file, l->lineno);
    snprintf(u->layout, sizeof u->layout, "%.3s", l->val);
    return KL_OK;
}

static enum kl_status key_summary(const struct line *l, struct kl_user_rung *u, int *seen,
                                  struct kl_err *e)
{
    (void)seen, (void)e;
    snprintf(u->summary, sizeof u->summary, "%.199s", l->val);
    return KL_OK;
}

/* "kladder: global" and "kladder: local": as many expressions as the other has. */
static enum kl_status key_shape(const struct line *l, struct kl_user_rung *u, int *seen,
                                struct kl_err *e)
{
    int global = l->key[0] == 'g', n;
    if (!(n = expressions(l->p, l->end, global ? u->global : u->local)))
        return BAD("\"kladder: %s\" takes 1 to 3 expressions separated by commas", l->file,
                   l->lineno, l->key);
    if (u->dims && u->dims != n)
        return BAD("\"kladder: global\" and \"kladder: local\" need as many dimensions", l->file,
                   l->lineno);
    u->dims = n;
    *seen |= global ? SEEN_GLOBAL : SEEN_LOCAL;
    return KL_OK;
}

static enum kl_status key_param(const struct line *l, struct kl_user_rung *u, int *seen,
                                struct kl_err *e)
{
    int nparams = kl_param_count(u->params);
    (void)seen;
    if (nparams == KL_MAX_PARAMS)
        return BAD("more than %d parameters", l->file, l->lineno, KL_MAX_PARAMS);
    if (!parse_param(l->p, l->end, u, nparams))
        return BAD("\"kladder: param\" takes NAME DEFAULT MIN..MAX [multiple M] [pow2] "
                   "[-- help], the default within the range and of its kind",
                   l->file, l->lineno);
    if (kl_param_index(u->params, u->param_name[nparams]) != nparams)
        return BAD("parameter %s declared twice", l->file, l->lineno, u->param_name[nparams]);
    return KL_OK;
}

/* The keys a `kladder:` line may have, and what reads each. */
static const struct {
    const char *key;
    enum kl_status (*read)(const struct line *l, struct kl_user_rung *u, int *seen,
                           struct kl_err *e);
} keys[] = {
    {"workload", key_workload}, {"entry", key_entry},  {"name", key_name},   {"layout", key_layout},
    {"summary", key_summary},   {"global", key_shape}, {"local", key_shape}, {"param", key_param},
};

/* One `kladder:` line (its text after the colon, p to end); *seen collects what it set. */
static enum kl_status parse_line(const char *file, int lineno, const char *p, const char *end,
                                 struct kl_user_rung *u, int *seen, struct kl_err *e)
{
    char key[32], val[256];
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    word(&p, end, key, sizeof key);
    snprintf(val, sizeof val, "%.*s", (int)(end - p), p);
    struct line l = {file, lineno, key, p, end, val};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i].key) == 0)
            return keys[i].read(&l, u, seen, e);
    return BAD("unknown \"kladder: %s\" (workload, entry, name, summary, global, local, "
               "param and layout are known)",
               file, lineno, key);
}
#undef BAD

/* The file's stem: its base name without the extension. */
static void stem(const char *file, char *out, size_t n)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, n, "%.*s", (int)len, base);
}

enum kl_status kl_user_rung_parse(const char *file, const char *text, struct kl_user_rung *u,
                                  struct kl_err *e)
{
    int seen = 0, lineno = 1;
    enum kl_status st;
    memset(u->params, 0, sizeof u->params);
    u->dims = 0;
    u->workload[0] = u->name[0] = u->summary[0] = u->layout[0] = '\0';
    for (const char *line = text; *line; lineno++) {
        size_t len = strcspn(line, "\n");
        const char *d = directive(line, len);
        if (d && (st = parse_line(file, lineno, d, line + len, u, &seen, e)) != KL_OK)
            return st;
        line += len + (line[len] == '\n');
    }
    if (!(seen & SEEN_WORKLOAD) || !(seen & SEEN_GLOBAL) || !(seen & SEEN_LOCAL))
        return kl_fail(e, KL_ERR_ARG,
                       "%s: the kernel's comments must say \"kladder: workload NAME\", "
                       "\"kladder: global ...\" and \"kladder: local ...\" (missing: %s%s%s); "
                       "`kladder template WORKLOAD` prints an example",
                       file, seen & SEEN_WORKLOAD ? "" : "workload ",
                       seen & SEEN_GLOBAL ? "" : "global ", seen & SEEN_LOCAL ? "" : "local");
    if (!u->entry[0])
        snprintf(u->entry, sizeof u->entry, "%s", u->workload);
    if (!u->name[0]) {
        char s[48];
        stem(file, s, sizeof s);
        snprintf(u->name, sizeof u->name, "%s", s[0] ? s : "user");
    }
    if (!u->summary[0])
        snprintf(u->summary, sizeof u->summary, "the user's kernel %.40s in %.100s", u->entry,
                 file);
    return KL_OK;
}

enum kl_status kl_user_rung_load(const char *spec, struct kl_user_rung *u, struct kl_err *e)
{
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    memset(u, 0, sizeof *u);
    if (colon && identifier(colon + 1)) {
        if (strlen(colon + 1) >= sizeof u->entry)
            return kl_fail(e, KL_ERR_ARG, "--kernel %s: the entry's name is too long", spec);
        snprintf(u->entry, sizeof u->entry, "%s", colon + 1);
        len = (size_t)(colon - spec);
    }
    if (len == 0 || len >= sizeof u->path)
        return kl_fail(e, KL_ERR_ARG, "--kernel takes FILE or FILE:ENTRY, not \"%s\"", spec);
    snprintf(u->path, sizeof u->path, "%.*s", (int)len, spec);
    enum kl_status st = kl_read_file(u->path, &u->text, NULL, e);
    if (st != KL_OK)
        return st;
    if (strlen(u->text) == 0)
        st = kl_fail(e, KL_ERR_ARG, "%s is empty", u->path);
    else
        st = kl_user_rung_parse(u->path, u->text, u, e);
    if (st == KL_OK && colon && u->entry[0] && len != strlen(spec)) {
        char s[48];
        stem(u->path, s, sizeof s);
        if (strcmp(u->name, s) == 0) /* the default name: say which entry */
            snprintf(u->name, sizeof u->name, "%.40s:%.20s", s, u->entry);
    }
    if (st != KL_OK)
        kl_user_rung_free(u);
    return st;
}

void kl_user_rung_free(struct kl_user_rung *u)
{
    free(u->text);
    u->text = NULL;
}

enum kl_status kl_user_rung_geometry(const struct kl_user_rung *u, const char *const *size_names,
                                     const long long *sizes, int nsizes, const int *values,
                                     int *dims, size_t *global, size_t *local, struct kl_err *e)
{
    /* up to 8 sizes, then the parameters */
    const char *names[8 + KL_MAX_PARAMS];
    long long vals[8 + KL_MAX_PARAMS];
    int n = 0, np = kl_param_count(u->params);
    for (int i = 0; i < nsizes && n < 8; i++, n++) {
        names[n] = size_names[i];
        vals[n] = sizes[i];
    }
    for (int i = 0; i < np; i++, n++) {
        names[n] = u->params[i].name;
        vals[n] = values[i];
    }
    struct kl_expr_vars vars = {names, vals, n};
    *dims = u->dims;
    for (int d = 0; d < 3; d++)
        global[d] = local[d] = 1;
    for (int d = 0; d < u->dims; d++) {
        long long g, l;
        enum kl_status st;
        if ((st = kl_expr_eval(u->global[d], &vars, &g, e)) != KL_OK ||
            (st = kl_expr_eval(u->local[d], &vars, &l, e)) != KL_OK) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e->msg);
            return kl_fail(e, KL_ERR_ARG, "%s: geometry %s", u->path, msg);
        }
        if (l < 1 || g < 1 || g % l != 0 || g > (1LL << 40))
            return kl_fail(e, KL_ERR_ARG,
                           "%s: dimension %d's global size %lld (%s) must be a positive multiple "
                           "of its local size %lld (%s)",
                           u->path, d, g, u->global[d], l, u->local[d]);
        global[d] = (size_t)g;
        local[d] = (size_t)l;
    }
    return KL_OK;
}
