/*
 * Stopping a run early and cleanly.
 *
 * On request: kl_stop_request (async-signal-safe; the command line's SIGINT
 * and SIGTERM handlers call it) makes the ladder and the measurement loops
 * return KL_ERR_INTERRUPTED at their next check, so the rows measured so far
 * are reported. A launch already on the device finishes first.
 *
 * Runaway launches: a launch that never ends (a user's kernel in an endless
 * loop) cannot be taken back by any API. A watchdog thread sees a launch
 * outlive its limit and calls the handler the program set, on the watchdog's
 * thread while the launching thread still waits; the handler reports what
 * it has and ends the process (it should not return: if it does, the launch
 * is left to finish).
 */
#ifndef KL_STOP_H
#define KL_STOP_H

#include "core/error.h"
#include "kladder.h" /* kl_stop_request */

/* The signal that asked for the stop (or -1 for a request without one); 0: none. */
int kl_stop_requested(void);
/* What asked for the stop: "SIGINT", "SIGTERM" or "a request". */
const char *kl_stop_name(void);
/* KL_ERR_INTERRUPTED with "stopped by SIGINT before the end" in e. */
enum kl_status kl_stop_fail(struct kl_err *e);
/*
 * Ranks that must stop together (kladder-mpi mgemm): while held (on = 1), a request is kept
 * aside, seen by kl_stop_held and not by the loops, until the ranks agree to stop at the same
 * step; on = 0 makes a kept request take effect.
 */
void kl_stop_hold(int on);
int kl_stop_held(void);

typedef void (*kl_runaway_fn)(double limit_s);
/* Launches longer than limit_s seconds call fn (limit_s <= 0 or fn NULL: no limit). */
void kl_watchdog_set(double limit_s, kl_runaway_fn fn);
/* Around each blocking launch. */
void kl_watchdog_arm(void);
void kl_watchdog_disarm(void);

#endif /* KL_STOP_H */
