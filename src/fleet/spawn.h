/*
 * Every device of a host at once: one process per device, each the kladder
 * binary itself, running the same command on its own device. A process per
 * device (not a thread) keeps each device's driver state, signal handling
 * and watchdog its own, exactly as in a run on one device.
 */
#ifndef KL_FLEET_SPAWN_H
#define KL_FLEET_SPAWN_H

#include "core/error.h"
#include "fleet/fleet.h"

/*
 * The members' environment: a copy of this process's as it is now, with
 * KLADDER_FLEET_MEMBER=1. Taken before any device is opened, since a
 * driver may change the environment of the process that loads it (an
 * OpenCL loader's variables would then not reach the members); NULL when
 * out of memory. kl_fleet_env_free frees it.
 */
char **kl_fleet_env(void);
void kl_fleet_env_free(char **env);

/* 1 when this process is a member of a fleet (KLADDER_FLEET_MEMBER is set, and not 0). */
int kl_fleet_is_member(void);

/*
 * Runs args (args[0]: the program, NULL-terminated) once per member, all at
 * once, each with "--device SPEC --json FILE --quiet" appended, in the
 * environment env (kl_fleet_env); its standard output (the table, which the
 * fleet writes itself) is dropped, its standard error kept. Waits for all;
 * a stop request (kl_stop_requested) is passed on to the members as
 * SIGTERM, so each writes the rows it has. Fills each member's exit code,
 * json and log (malloc'd: kl_fleet_spawn_free). KL_ERR_BACKEND when a
 * process cannot be started.
 */
enum kl_status kl_fleet_spawn(char *const *args, char **env, struct kl_fleet_member *m, int n,
                              struct kl_err *e);

void kl_fleet_spawn_free(struct kl_fleet_member *m, int n);

/* This process's executable, for args[0] ("/proc/self/exe" resolved); 0 or -1. */
int kl_fleet_self(char *path, size_t n);

#endif /* KL_FLEET_SPAWN_H */
