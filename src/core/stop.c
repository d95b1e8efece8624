#define _POSIX_C_SOURCE 200809L
#include "core/stop.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

static volatile sig_atomic_t stop_sig, held, held_sig;

void kl_stop_request(int sig)
{
    if (held)
        held_sig = sig ? sig : -1;
    else
        stop_sig = sig ? sig : -1;
}

void kl_stop_hold(int on)
{
    if (on && stop_sig) /* asked already: kept aside too, until the ranks agree */
        held_sig = stop_sig, stop_sig = 0;
    held = on;
    if (!on && held_sig)
        stop_sig = held_sig, held_sig = 0;
}

int kl_stop_held(void)
{
    return held_sig;
}

int kl_stop_requested(void)
{
    return stop_sig;
}

const char *kl_stop_name(void)
{
    int sig = stop_sig;
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a request";
}

enum kl_status kl_stop_fail(struct kl_err *e)
{
    return kl_fail(e, KL_ERR_INTERRUPTED, "stopped by %s before the end", kl_stop_name());
}

/* The watchdog: one thread, started at the first armed launch, asleep until a deadline. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static int started, armed;
static double limit;
static kl_runaway_fn handler;
static struct timespec deadline; /* CLOCK_MONOTONIC */

static void *watch(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&mu);
    for (;;) {
        if (!armed) {
            pthread_cond_wait(&cv, &mu);
            continue;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > deadline.tv_sec ||
            (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec)) {
            /* Held: the launching thread cannot disarm, and so cannot go on, while fn reports. */
            handler(limit);
            armed = 0;
            continue;
        }
        pthread_cond_timedwait(&cv, &mu, &deadline);
    }
    return NULL;
}

void kl_watchdog_set(double limit_s, kl_runaway_fn fn)
{
    pthread_mutex_lock(&mu);
    limit = limit_s;
    handler = fn;
    pthread_mutex_unlock(&mu);
}

/* Starts the thread (mu held); 0 on success. */
static int start(void)
{
    pthread_condattr_t a;
    pthread_t t;
    if (pthread_condattr_init(&a) != 0)
        return -1;
    int bad =
        pthread_condattr_setclock(&a, CLOCK_MONOTONIC) != 0 || pthread_cond_init(&cv, &a) != 0;
    pthread_condattr_destroy(&a);
    if (bad)
        return -1;
    if (pthread_create(&t, NULL, watch, NULL) != 0) {
        pthread_cond_destroy(&cv);
        return -1;
    }
    pthread_detach(t);
    started = 1;
    return 0;
}

void kl_watchdog_arm(void)
{
    pthread_mutex_lock(&mu);
    if (limit > 0 && handler && (started || start() == 0)) {
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        double whole = (double)(long long)limit;
        deadline.tv_sec += (time_t)whole;
        deadline.tv_nsec += (long)((limit - whole) * 1e9);
        if (deadline.tv_nsec >= 1000000000L)
            deadline.tv_sec++, deadline.tv_nsec -= 1000000000L;
        armed = 1;
        pthread_cond_signal(&cv);
    }
    pthread_mutex_unlock(&mu);
}

void kl_watchdog_disarm(void)
{
    pthread_mutex_lock(&mu);
    armed = 0;
    pthread_mutex_unlock(&mu);
}
