/* The row of a ladder run (kladder.h) by its rung's name, for the tests of the ladder API. */
#ifndef KL_TEST_LADDER_ROWS_H
#define KL_TEST_LADDER_ROWS_H

#include <string.h>

#include "kladder.h"

/* Row named rung of l, or NULL. */
static inline const struct kl_row *row_named(const struct kl_ladder *l, const char *rung)
{
    for (int i = 0; i < kl_ladder_count(l); i++)
        if (strcmp(kl_ladder_row(l, i)->rung, rung) == 0)
            return kl_ladder_row(l, i);
    return NULL;
}

#endif
