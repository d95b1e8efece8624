/*
 * The kernels' text as the article reads it: a kernel file's source today,
 * the paragraph of its `Change:` field (what differs from the rung below and
 * why it should help: the article's prose lives in the kernel files), and
 * the headers it includes.
 */
#ifndef KL_ARTICLE_SOURCES_H
#define KL_ARTICLE_SOURCES_H

#include <stddef.h>

/*
 * The text of kernel file FILE today, malloc'd: under dir (a --kernel-dir)
 * when dir is given, else the copy built into kladder; a file that is
 * neither (a user's kernel, named by its own path) is read from disk. NULL
 * with the reason in why where it cannot be read.
 */
char *kl_article_source(const char *dir, const char *file, char *why, size_t n);

/*
 * The `Change:` field of text's first comment, its lines joined into one
 * paragraph, into out (n bytes); "" where it has none. A field runs from its
 * label to the next label (" * Name:" at the comment's margin), a blank
 * comment line, or the comment's end.
 */
void kl_change_paragraph(const char *text, char *out, size_t n);

/* The files text includes with `#include "NAME"`, in order, into names; their count. */
#define KL_ARTICLE_INCLUDES 4
int kl_source_includes(const char *text, char names[][128], int max);

/* The path of NAME beside FILE ("cuda/gemm/hopper.cuh" beside "cuda/gemm/17_wgmma_tf32.cu"). */
void kl_source_beside(const char *file, const char *name, char *out, size_t n);

#endif /* KL_ARTICLE_SOURCES_H */
