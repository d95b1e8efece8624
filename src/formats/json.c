#include "formats/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *s;
    size_t len, pos;
    int line;
    size_t line_start; /* offset of the current line's first byte */
    char *err;
    size_t errn;
    int failed;
};

static int column(const struct parser *p, size_t pos)
{
    return (int)(pos - p->line_start) + 1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
fail_at(struct parser *p, size_t pos, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = 1;
    if (!p->errn)
        return;
    int k = snprintf(p->err, p->errn, "line %d, column %d: ", p->line, column(p, pos));
    if (k < 0 || (size_t)k >= p->errn)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + k, p->errn - (size_t)k, fmt, ap);
    va_end(ap);
}

/* What is at pos, for messages: a printable character, or its code. */
static void describe(const struct parser *p, size_t pos, char *out, size_t n)
{
    if (pos >= p->len) {
        snprintf(out, n, "the end of the file");
        return;
    }
    unsigned char c = (unsigned char)p->s[pos];
    if (c >= 0x21 && c < 0x7f)
        snprintf(out, n, "'%c'", c);
    else
        snprintf(out, n, "byte 0x%02x", c);
}

static void unexpected(struct parser *p, const char *wanted)
{
    char what[32];
    describe(p, p->pos, what, sizeof what);
    if (p->pos >= p->len)
        fail_at(p, p->pos, "the file ends where %s was expected (is it truncated?)", wanted);
    else
        fail_at(p, p->pos, "expected %s, found %s", wanted, what);
}

static void skip_space(struct parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

static struct kl_json *node(struct parser *p, enum kl_json_type t)
{
    struct kl_json *v = calloc(1, sizeof *v);
    if (!v) {
        fail_at(p, p->pos, "out of memory");
        return NULL;
    }
    v->type = t;
    v->line = p->line;
    v->col = column(p, p->pos);
    return v;
}

/* Appends to a growing buffer; 0 when out of memory. */
struct buf {
    char *data;
    size_t len, cap;
};

static int buf_put(struct buf *b, const char *src, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 32;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *more = realloc(b->data, cap);
        if (!more)
            return 0;
        b->data = more;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 1;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static size_t utf8_encode(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The length of the sequence lead byte c starts (2 to 4) and its bits into *cp; 0: none. */
static size_t utf8_lead(unsigned char c, unsigned *cp)
{
    if (c >= 0xC2 && c <= 0xDF) {
        *cp = c & 0x1Fu;
        return 2;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        *cp = c & 0x0Fu;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        *cp = c & 0x07u;
        return 4;
    }
    return 0;
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_valid(const unsigned char *s, size_t n)
{
    unsigned cp = 0;
    if (s[0] < 0x80)
        return 1;
    size_t k = utf8_lead(s[0], &cp);
    if (!k || k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    /* Overlong forms, surrogates and code points past U+10FFFF. */
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

/* What reading a piece of a string came to: appended, refused (reported), out of memory. */
enum piece { PIECE_OK, PIECE_BAD, PIECE_OOM };

/*
 * The code point of the \u escape at p->pos, a surrogate pair as one, p
 * past it. 0 after reporting a malformed escape, half a pair or \u0000.
 */
static int unicode_escape(struct parser *p, unsigned *out)
{
    unsigned cp, lo;
    if (p->pos + 6 > p->len || !hex4(p->s + p->pos + 2, &cp)) {
        fail_at(p, p->pos, "\\u needs four hexadecimal digits");
        return 0;
    }
    size_t at = p->pos;
    p->pos += 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (p->pos + 6 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
            !hex4(p->s + p->pos + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
            fail_at(p, at, "\\u%04X is half of a surrogate pair without its other half", cp);
            return 0;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        p->pos += 6;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        fail_at(p, at, "\\u%04X is half of a surrogate pair without its other half", cp);
        return 0;
    } else if (cp == 0) {
        fail_at(p, at, "\\u0000 (a NUL character) is not accepted in strings");
        return 0;
    }
    *out = cp;
    return 1;
}

/* The escape at p->pos (a backslash) of the string opened at start, into b; p past it. */
static enum piece string_escape(struct parser *p, size_t start, struct buf *b)
{
    if (p->pos + 1 >= p->len) {
        fail_at(p, start, "the file ends inside this string (is it truncated?)");
        return PIECE_BAD;
    }
    char e = p->s[p->pos + 1], out[4];
    const char *map = strchr("\"\\/bfnrt", e);
    unsigned cp;
    if (e && map) {
        static const char repl[] = "\"\\/\b\f\n\r\t";
        out[0] = repl[map - "\"\\/bfnrt"];
        if (!buf_put(b, out, 1))
            return PIECE_OOM;
        p->pos += 2;
        return PIECE_OK;
    }
    if (e != 'u') {
        fail_at(p, p->pos, "unknown escape \\%c in a string", e >= 0x21 && e < 0x7f ? e : '?');
        return PIECE_BAD;
    }
    if (!unicode_escape(p, &cp))
        return PIECE_BAD;
    return buf_put(b, out, utf8_encode(cp, out)) ? PIECE_OK : PIECE_OOM;
}

/* The UTF-8 character at p->pos into b; p past it. */
static enum piece string_char(struct parser *p, struct buf *b)
{
    size_t k = utf8_valid((const unsigned char *)p->s + p->pos, p->len - p->pos);
    if (!k) {
        fail_at(p, p->pos, "invalid UTF-8 (byte 0x%02x) inside a string",
                (unsigned char)p->s[p->pos]);
        return PIECE_BAD;
    }
    if (!buf_put(b, p->s + p->pos, k))
        return PIECE_OOM;
    p->pos += k;
    return PIECE_OK;
}

/* A string starting at the opening quote; returns it malloc'd, or NULL. */
static char *parse_string(struct parser *p)
{
    struct buf b = {NULL, 0, 0};
    size_t start = p->pos;
    p->pos++; /* the quote */
    if (!buf_put(&b, "", 0))
        goto oom;
    for (;;) {
        if (p->pos >= p->len) {
            fail_at(p, start, "the file ends inside this string (is it truncated?)");
            goto fail;
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            return b.data;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "a control character (0x%02x) inside a string must be escaped", c);
            goto fail;
        }
        enum piece got = c == '\\' ? string_escape(p, start, &b) : string_char(p, &b);
        if (got == PIECE_OOM)
            goto oom;
        if (got == PIECE_BAD)
            goto fail;
    }
oom:
    fail_at(p, p->pos, "out of memory");
fail:
    free(b.data);
    return NULL;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* i past the digits from s[i] on. */
static size_t skip_digits(const struct parser *p, size_t i)
{
    while (i < p->len && is_digit(p->s[i]))
        i++;
    return i;
}

/* The integer part from *i: -?(0|[1-9][0-9]*), *i past it; 0 after reporting. */
static int scan_integer(struct parser *p, size_t start, size_t *i)
{
    const char *s = p->s;
    if (*i < p->len && s[*i] == '-')
        (*i)++;
    if (*i >= p->len || !is_digit(s[*i])) {
        p->pos = *i;
        unexpected(p, "a digit");
        return 0;
    }
    if (s[*i] != '0') {
        *i = skip_digits(p, *i);
        return 1;
    }
    (*i)++;
    if (*i < p->len && is_digit(s[*i])) {
        fail_at(p, start, "a number may not start with 0 followed by digits");
        return 0;
    }
    return 1;
}

/*
 * An optional part from *i: lead ('.', or 'e' and 'E'), a sign where signed,
 * then digits (what: the error's words where there are none). *i past it;
 * 0 after reporting.
 */
static int scan_part(struct parser *p, size_t *i, char lead, char lead2, int sign, const char *what)
{
    const char *s = p->s;
    if (*i >= p->len || (s[*i] != lead && s[*i] != lead2))
        return 1;
    (*i)++;
    if (sign && *i < p->len && (s[*i] == '+' || s[*i] == '-'))
        (*i)++;
    if (*i >= p->len || !is_digit(s[*i])) {
        p->pos = *i;
        unexpected(p, what);
        return 0;
    }
    *i = skip_digits(p, *i);
    return 1;
}

/* The number written from start to i, as a node; p past it. */
static struct kl_json *number_node(struct parser *p, size_t start, size_t i)
{
    const char *s = p->s;
    char tmp[64], *copy = tmp, *end;
    size_t n = i - start;
    if (n >= sizeof tmp && !(copy = malloc(n + 1))) {
        fail_at(p, start, "out of memory");
        return NULL;
    }
    memcpy(copy, s + start, n);
    copy[n] = '\0';
    double v = strtod(copy, &end);
    if (copy != tmp)
        free(copy);
    if (!isfinite(v)) {
        fail_at(p, start, "the number %.*s is beyond the range of a double", n > 40 ? 40 : (int)n,
                s + start);
        return NULL;
    }
    struct kl_json *x = node(p, KL_JSON_NUMBER);
    if (x)
        x->number = v;
    p->pos = i;
    return x;
}

static struct kl_json *parse_number(struct parser *p)
{
    size_t start = p->pos, i = p->pos;
    if (!scan_integer(p, start, &i) ||
        !scan_part(p, &i, '.', '.', 0, "a digit after the decimal point") ||
        !scan_part(p, &i, 'e', 'E', 1, "a digit in the exponent"))
        return NULL;
    return number_node(p, start, i);
}

static int literal(struct parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos >= n && memcmp(p->s + p->pos, word, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

static int push(struct parser *p, struct kl_json *v, struct kl_json *item, char *key)
{
    if ((v->count & (v->count - 1)) == 0) { /* 0, 1, 2, 4, ...: grow to the next power of two */
        size_t cap = v->count ? 2 * (size_t)v->count : 1;
        struct kl_json **items = realloc(v->items, cap * sizeof *items);
        if (!items)
            goto oom;
        v->items = items;
        if (v->type == KL_JSON_OBJECT) {
            char **keys = realloc(v->keys, cap * sizeof *keys);
            if (!keys)
                goto oom;
            v->keys = keys;
        }
    }
    v->items[v->count] = item;
    if (v->type == KL_JSON_OBJECT)
        v->keys[v->count] = key;
    v->count++;
    return 1;
oom:
    fail_at(p, p->pos, "out of memory");
    return 0;
}

static struct kl_json *parse_value(struct parser *p, int depth);

/*
 * A member's name and its ':' (p at the opening quote, which is there), into
 * *key (malloc'd); 0 after reporting a duplicate or a missing ':'.
 */
static int member_name(struct parser *p, const struct kl_json *v, char **key)
{
    size_t at = p->pos;
    int at_line = p->line, at_col = column(p, at);
    if (!(*key = parse_string(p)))
        return 0;
    for (int k = 0; k < v->count; k++)
        if (strcmp(v->keys[k], *key) == 0) {
            p->line = at_line; /* report the duplicate where it is */
            p->line_start = at - (size_t)(at_col - 1);
            fail_at(p, at, "the member \"%.60s\" appears twice in one object", *key);
            free(*key);
            return 0;
        }
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != ':') {
        free(*key);
        unexpected(p, "':' after the member name");
        return 0;
    }
    p->pos++;
    skip_space(p);
    return 1;
}

/* The next item of v, after its name in an object, appended to v; 0 after reporting. */
static int container_item(struct parser *p, struct kl_json *v, int depth, int object)
{
    char *key = NULL;
    if (object && !member_name(p, v, &key))
        return 0;
    struct kl_json *item = parse_value(p, depth + 1);
    if (!item) {
        free(key);
        return 0;
    }
    if (!push(p, v, item, key)) {
        free(key);
        kl_json_free(item);
        return 0;
    }
    return 1;
}

/*
 * Past the opening bracket of a container at depth: 1 where items follow,
 * 0 where it closes at once (p past close), -1 after reporting it too deep.
 */
static int container_open(struct parser *p, int depth, char close)
{
    if (depth >= KL_JSON_MAX_DEPTH) {
        fail_at(p, p->pos, "nested more than %d deep", KL_JSON_MAX_DEPTH);
        return -1;
    }
    p->pos++;
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    return 1;
}

/* After an item: 1 where a comma says another follows, 0 where close ends it, -1 after
 * reporting neither. */
static int container_next(struct parser *p, int object, char close)
{
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == ',') {
        p->pos++;
        return 1;
    }
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return 0;
    }
    unexpected(p, object ? "',' or '}'" : "',' or ']'");
    return -1;
}

static struct kl_json *parse_container(struct parser *p, int depth, int object)
{
    struct kl_json *v = node(p, object ? KL_JSON_OBJECT : KL_JSON_ARRAY);
    char close = object ? '}' : ']';
    if (!v)
        return NULL;
    int more = container_open(p, depth, close);
    while (more > 0) {
        skip_space(p);
        if (object) {
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                unexpected(p, v->count ? "a member name in double quotes (no trailing commas)"
                                       : "a member name in double quotes, or '}'");
                goto fail;
            }
        } else if (p->pos < p->len && p->s[p->pos] == ']' && v->count) {
            unexpected(p, "a value (no trailing commas)");
            goto fail;
        }
        if (!container_item(p, v, depth, object))
            goto fail;
        more = container_next(p, object, close);
    }
    if (more == 0)
        return v;
fail:
    kl_json_free(v);
    return NULL;
}

/* A string value (p at its opening quote) as a node. */
static struct kl_json *string_node(struct parser *p)
{
    struct kl_json *v = node(p, KL_JSON_STRING);
    if (!v)
        return NULL;
    if (!(v->string = parse_string(p))) {
        free(v);
        return NULL;
    }
    return v;
}

/* true, false or null at p->pos as a node; NULL (nothing reported) where none is. */
static struct kl_json *literal_node(struct parser *p, int *none)
{
    size_t at = p->pos;
    int t = literal(p, "true"), f = !t && literal(p, "false"), z = !t && !f && literal(p, "null");
    *none = !(t || f || z);
    if (*none)
        return NULL;
    size_t end = p->pos;
    p->pos = at;
    struct kl_json *v = node(p, z ? KL_JSON_NULL : KL_JSON_BOOL);
    p->pos = end;
    if (v)
        v->boolean = t;
    return v;
}

static struct kl_json *parse_value(struct parser *p, int depth)
{
    skip_space(p);
    if (p->pos >= p->len) {
        unexpected(p, "a value");
        return NULL;
    }
    char c = p->s[p->pos];
    int none = 1;
    if (c == '{' || c == '[')
        return parse_container(p, depth, c == '{');
    if (c == '"')
        return string_node(p);
    if (c == '-' || is_digit(c))
        return parse_number(p);
    if (c == 't' || c == 'f' || c == 'n') {
        struct kl_json *v = literal_node(p, &none);
        if (!none)
            return v;
    }
    unexpected(p, "a value (an object, array, string, number, true, false or null)");
    return NULL;
}

struct kl_json *kl_json_parse(const char *text, size_t len, char *err, size_t n)
{
    struct parser p = {text, len, 0, 1, 0, err, n, 0};
    if (n)
        err[0] = '\0';
    /* A byte-order mark is not JSON, but says plainly what the file is. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        p.pos = p.line_start = 3;
    skip_space(&p);
    if (p.pos >= len) {
        snprintf(err, n, "the file is empty%s", len ? " (only white space)" : "");
        return NULL;
    }
    struct kl_json *v = parse_value(&p, 0);
    if (!v)
        return NULL;
    skip_space(&p);
    if (p.pos < len) {
        char what[32];
        describe(&p, p.pos, what, sizeof what);
        fail_at(&p, p.pos, "%s after the end of the JSON value", what);
        kl_json_free(v);
        return NULL;
    }
    return v;
}

void kl_json_free(struct kl_json *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->count; i++) {
        kl_json_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
    free(v);
}

const struct kl_json *kl_json_get(const struct kl_json *v, const char *key)
{
    if (!v || v->type != KL_JSON_OBJECT)
        return NULL;
    for (int i = 0; i < v->count; i++)
        if (strcmp(v->keys[i], key) == 0)
            return v->items[i];
    return NULL;
}

const char *kl_json_type_name(enum kl_json_type t)
{
    switch (t) {
    case KL_JSON_NULL: return "null";
    case KL_JSON_BOOL: return "a boolean";
    case KL_JSON_NUMBER: return "a number";
    case KL_JSON_STRING: return "a string";
    case KL_JSON_ARRAY: return "an array";
    case KL_JSON_OBJECT: return "an object";
    }
    return "?";
}

/* The length lead byte c announces (1 to 4), or 0 where it is no lead byte. */
static int lead_length(unsigned char c)
{
    return c < 0x80             ? 1
           : (c & 0xe0) == 0xc0 ? 2
           : (c & 0xf0) == 0xe0 ? 3
           : (c & 0xf8) == 0xf0 ? 4
                                : 0;
}

/* 1 unless the n-byte sequence at s is overlong, a surrogate or beyond U+10FFFF. */
static int in_range(const unsigned char *s, int n)
{
    if (n == 3)
        return !((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0));
    if (n == 4)
        return !((s[0] == 0xf0 && s[1] < 0x90) || s[0] > 0xf4 || (s[0] == 0xf4 && s[1] >= 0x90));
    return 1;
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 where it is not one. */
static int utf8_length(const unsigned char *s)
{
    int n = lead_length(s[0]);
    if (n == 2 && s[0] < 0xc2) /* overlong */
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return in_range(s, n) ? n : 0;
}

void kl_json_write_number(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 9007199254740992.0) /* whole: every digit (sizes) */
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.9g", v);
}

void kl_json_write_string(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    while (*p) {
        int n = utf8_length(p);
        if (n == 0) {
            fputs("\\ufffd", out);
            p++;
        } else if (n > 1) {
            fwrite(p, 1, (size_t)n, out);
            p += n;
        } else {
            if (*p == '"' || *p == '\\')
                fprintf(out, "\\%c", *p);
            else if (*p == '\n')
                fputs("\\n", out);
            else if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
            p++;
        }
    }
    fputc('"', out);
}
