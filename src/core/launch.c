#include "core/launch.h"

#include "core/machine.h"
#include "core/stop.h"

enum kl_status kl_launch_timed(void *launch, double *seconds, struct kl_err *e)
{
    struct kl_launch *l = launch;
    struct kl_context *kl = l->kl;
    struct kl_launch_time t = {0, 0};
    if (kl_stop_requested())
        return kl_stop_fail(e);
    kl_watchdog_arm();
    enum kl_status st =
        kl->ops->launch(kl->dev, l->kernel, l->args, l->nargs, l->dims, l->global, l->local, &t, e);
    kl_watchdog_disarm();
    if (st == KL_OK)
        kl_machine_saw(kl, l);
    *seconds = t.run;
    return st;
}

void kl_launch_1d(struct kl_launch *l, size_t groups, size_t wg)
{
    l->dims = 1;
    l->local[0] = wg;
    l->global[0] = groups * wg;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
}

enum kl_status kl_launch_check(const struct kl_launch *l, const char *rung, struct kl_err *e)
{
    const struct kl_device_info *dev = &l->kl->info;
    size_t wg = l->local[0] * (l->dims > 1 ? l->local[1] : 1) * (l->dims > 2 ? l->local[2] : 1);
    if (wg > dev->max_wg)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: work-group of %zu work-items exceeds the device's maximum of %zu "
                       "(CL_DEVICE_MAX_WORK_GROUP_SIZE)",
                       rung, wg, dev->max_wg);
    for (int d = 0; d < l->dims; d++)
        if (l->local[d] > dev->max_item[d])
            return kl_fail(e, KL_ERR_UNSUPPORTED,
                           "rung %s: work-group size %zu in dimension %d exceeds the device's "
                           "maximum of %zu",
                           rung, l->local[d], d, dev->max_item[d]);
    if (l->kernel && wg > l->kl->ops->kernel_max_wg(l->kernel))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: work-group of %zu exceeds this kernel's limit of %zu "
                       "(CL_KERNEL_WORK_GROUP_SIZE)",
                       rung, wg, l->kl->ops->kernel_max_wg(l->kernel));
    return KL_OK;
}

enum kl_status kl_launch_pair_timed(void *pair, double *seconds, struct kl_err *e)
{
    struct kl_launch_pair *p = pair;
    double t1 = 0, t2 = 0;
    enum kl_status st = kl_launch_timed(p->a, &t1, e);
    if (st == KL_OK && p->b)
        st = kl_launch_timed(p->b, &t2, e);
    *seconds = t1 + t2;
    for (int i = 0; st == KL_OK && i < p->nmore; i++) {
        st = kl_launch_timed(p->more[i], &t1, e);
        *seconds += t1;
    }
    return st;
}

size_t kl_round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

struct kl_arg kl_arg_scalar(enum kl_type t, double v)
{
    return t == KL_FLOAT ? (struct kl_arg){KL_ARG_FLOAT, {.f = (float)v}}
                         : (struct kl_arg){KL_ARG_DOUBLE, {.d = v}};
}
