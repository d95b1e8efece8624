/* A minimal assertion counter for kladder's C tests. */
#ifndef KL_TEST_CHECK_H
#define KL_TEST_CHECK_H

#include <stdio.h>

static int checks_run, checks_failed;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks_run++;                                                                          \
        if (!(cond)) {                                                                         \
            checks_failed++;                                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

/* Prints the summary line and returns the process exit code. */
static int check_summary(void)
{
    printf("%d passed, %d failed\n", checks_run - checks_failed, checks_failed);
    return checks_failed ? 1 : 0;
}

#endif
