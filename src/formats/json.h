/*
 * A strict JSON reader (RFC 8259) for kladder's own files: a recursive-descent
 * parser into a tree. It refuses what a lenient reader would guess at —
 * trailing commas, comments, leading zeros, bare control characters, invalid
 * UTF-8, lone surrogates, duplicate keys, numbers beyond double range, text
 * after the value, nesting deeper than KL_JSON_MAX_DEPTH — and says where, as
 * line and column (both from 1; columns count bytes). Nothing here prints.
 */
#ifndef KL_JSON_H
#define KL_JSON_H

#include <stddef.h>
#include <stdio.h>

#define KL_JSON_MAX_DEPTH 64

enum kl_json_type {
    KL_JSON_NULL,
    KL_JSON_BOOL,
    KL_JSON_NUMBER,
    KL_JSON_STRING,
    KL_JSON_ARRAY,
    KL_JSON_OBJECT
};

struct kl_json {
    enum kl_json_type type;
    int line, col; /* where the value starts */
    int boolean;   /* KL_JSON_BOOL */
    double number; /* KL_JSON_NUMBER */
    char *string;  /* KL_JSON_STRING: UTF-8, NUL-terminated (\u0000 is refused) */
    int count;     /* KL_JSON_ARRAY and KL_JSON_OBJECT: items (and keys), in file order */
    struct kl_json **items;
    char **keys; /* KL_JSON_OBJECT only */
};

/*
 * Parses len bytes of text. Returns the tree (free it with kl_json_free), or
 * NULL with a message in err: "line L, column C: what was expected" (an
 * empty text, the end of the text inside a value, or no memory, said as
 * such).
 */
struct kl_json *kl_json_parse(const char *text, size_t len, char *err, size_t n);

void kl_json_free(struct kl_json *v);

/* The member key of an object, or NULL (also when v is no object). */
const struct kl_json *kl_json_get(const struct kl_json *v, const char *key);

/* The name of a type, for messages: "null", "a boolean", "a number", ... */
const char *kl_json_type_name(enum kl_json_type t);

/*
 * Writes s as a JSON string: quotes, backslashes and control characters
 * escaped, and any byte that is not part of valid UTF-8 written as U+FFFD,
 * so that what a device or a compiler said never makes the file unreadable.
 */
void kl_json_write_string(FILE *out, const char *s);
/* Writes v as a JSON number (a whole number to the last digit, so sizes such as 2^30 stay
 * exact; else 9 significant digits), or null where it is NaN or infinite. */
void kl_json_write_number(FILE *out, double v);

#endif /* KL_JSON_H */
