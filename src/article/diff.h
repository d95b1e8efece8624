/*
 * The change between two texts as a unified diff, made by libgit2's patch
 * API (git_patch_from_buffers), which kladder links where CMake finds it
 * (KLADDER_HAVE_LIBGIT2): the article's diffs come from a well-kept library,
 * not from an algorithm of kladder's own. Without it every call says so.
 */
#ifndef KL_ARTICLE_DIFF_H
#define KL_ARTICLE_DIFF_H

#include <stddef.h>

/* One line of a hunk: ' ' context, '+' added, '-' removed; its numbers in each text (0: none). */
struct kl_diff_line {
    char origin;
    int old_no, new_no;
    char *text; /* without its newline */
};

struct kl_diff_hunk {
    int old_start, old_lines, new_start, new_lines;
    struct kl_diff_line *lines;
    int nlines;
};

struct kl_diff {
    struct kl_diff_hunk *hunks; /* none where the texts are equal */
    int nhunks;
    int added, removed;         /* lines */
    char *unified;              /* the whole patch as `git diff` prints it ("" where equal) */
};

/* 1 where kladder was built with libgit2; else 0 and why (n bytes). */
int kl_diff_available(char *why, size_t n);

/*
 * The diff from old_text (named old_name: a/NAME in the patch) to new_text
 * (b/NAME), with `context` lines around each change, into d. 0, or -1 with
 * the reason in why (no libgit2, out of memory, libgit2's own error).
 */
int kl_diff_texts(const char *old_text, const char *old_name, const char *new_text,
                  const char *new_name, int context, struct kl_diff *d, char *why, size_t n);

void kl_diff_free(struct kl_diff *d);

#endif /* KL_ARTICLE_DIFF_H */
