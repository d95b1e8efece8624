/*
 * Progress of a long command on standard error: "rung i of n" and what it is
 * doing, on one line that is rewritten in place and cleared at the end.
 * Silent unless the command line turned it on (the library never prints by
 * itself), standard error is a terminal, --quiet was not given, and the
 * command has been running for about two seconds (KLADDER_PROGRESS_DELAY
 * seconds, when set), so quick commands and pipes see nothing extra.
 */
#ifndef KL_PROGRESS_H
#define KL_PROGRESS_H

/* Called once by the command line at start: starts the clock; quiet turns progress off. */
void kl_progress_init(int quiet);

/* Step i (from 0) of n: shows "[i+1/n] " and the formatted text. */
void kl_progress_step(int i, int n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Clears the progress line, if one was shown; call before printing results. */
void kl_progress_done(void);

#endif /* KL_PROGRESS_H */
