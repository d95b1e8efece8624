#include <stdint.h>
#include <string.h>

#include "kladder.h"

const char *kl_type_name(enum kl_type t)
{
    switch (t) {
    case KL_FLOAT: return "float";
    case KL_DOUBLE: return "double";
    case KL_INT: return "int";
    }
    return "?";
}

size_t kl_type_size(enum kl_type t)
{
    switch (t) {
    case KL_FLOAT: return sizeof(float);
    case KL_DOUBLE: return sizeof(double);
    case KL_INT: return sizeof(int32_t);
    }
    return 0;
}

enum kl_status kl_type_parse(const char *name, enum kl_type *out)
{
    static const enum kl_type all[] = {KL_FLOAT, KL_DOUBLE, KL_INT};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (name && strcmp(name, kl_type_name(all[i])) == 0) {
            *out = all[i];
            return KL_OK;
        }
    return KL_ERR_ARG;
}
