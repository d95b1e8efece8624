#define _GNU_SOURCE /* mkdtemp, posix_spawn's file actions, environ */
#include "fleet/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/stop.h"
#include "core/util.h"

extern char **environ;

int kl_fleet_self(char *path, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", path, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return -1;
    path[k] = '\0';
    return 0;
}

char **kl_fleet_env(void)
{
    int n = 0, k = 0;
    while (environ[n])
        n++;
    char **env = calloc((size_t)n + 2, sizeof *env);
    for (int i = 0; env && i < n; i++)
        if (strncmp(environ[i], "KLADDER_FLEET_MEMBER=", 21) != 0 &&
            !(env[k++] = kl_strdup(environ[i]))) {
            kl_fleet_env_free(env);
            return NULL;
        }
    if (env && !(env[k] = kl_strdup("KLADDER_FLEET_MEMBER=1"))) {
        kl_fleet_env_free(env);
        return NULL;
    }
    return env;
}

void kl_fleet_env_free(char **env)
{
    for (int i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

int kl_fleet_is_member(void)
{
    const char *v = getenv("KLADDER_FLEET_MEMBER");
    return v && *v && strcmp(v, "0") != 0;
}

/* Starts member i: args, then its device and outputs; *pid, or an error. */
static enum kl_status start(char *const *args, char **env, const char *dir, int i,
                            struct kl_fleet_member *m, pid_t *pid, struct kl_err *e)
{
    char json[4200], log[4200];
    int nargs = 0;
    while (args[nargs])
        nargs++;
    char **argv = calloc((size_t)nargs + 10, sizeof *argv);
    if (!argv)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of memory starting the fleet");
    snprintf(json, sizeof json, "%s/member-%d.json", dir, i);
    snprintf(log, sizeof log, "%s/member-%d.log", dir, i);
    memcpy(argv, args, (size_t)nargs * sizeof *argv);
    char *extra[] = {"--device", m->spec, "--json", json, "--quiet"};
    memcpy(argv + nargs, extra, sizeof extra);
    argv[nargs + sizeof extra / sizeof *extra] = NULL;

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int rc = posix_spawn(pid, argv[0], &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cannot start %s for %s: %s", args[0], m->spec,
                       strerror(rc));
    return KL_OK;
}

/* A file's text, malloc'd, or NULL when it is missing or empty. */
static char *slurp(const char *path)
{
    struct kl_err e;
    char *text = NULL;
    size_t len = 0;
    if (kl_read_file(path, &text, &len, &e) != KL_OK)
        return NULL;
    if (len == 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Waits for every started member; passes a stop request on to them once. */
static void wait_all(pid_t *pid, struct kl_fleet_member *m, int n)
{
    int running = 0, told = 0;
    for (int i = 0; i < n; i++)
        running += pid[i] > 0;
    while (running > 0) {
        int status;
        pid_t got = waitpid(-1, &status, WNOHANG);
        if (got > 0) {
            for (int i = 0; i < n; i++)
                if (pid[i] == got) {
                    m[i].exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                                     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                                           : 3;
                    pid[i] = 0;
                    running--;
                }
            continue;
        }
        if (got < 0 && errno != EINTR)
            break;
        if (kl_stop_requested() && !told) {
            /* A terminal's Ctrl-C reached the members too; SIGTERM sent to us alone did not. */
            for (int i = 0; i < n; i++)
                if (pid[i] > 0)
                    kill(pid[i], SIGTERM);
            told = 1;
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Empties and removes the fleet's directory: a member killed mid-write leaves its .tmp file. */
static void remove_rest(const char *dir)
{
    char path[4400];
    DIR *d = opendir(dir);
    for (struct dirent *f; d && (f = readdir(d));)
        if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            remove(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

enum kl_status kl_fleet_spawn(char *const *args, char **env, struct kl_fleet_member *m, int n,
                              struct kl_err *e)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], path[4200];
    pid_t pid[KL_FLEET_MAX] = {0};
    enum kl_status st = KL_OK;
    if (n > KL_FLEET_MAX)
        return kl_fail(e, KL_ERR_ARG, "%d devices: a fleet has at most %d", n, KL_FLEET_MAX);
    snprintf(dir, sizeof dir, "%s/kladder-fleet-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return kl_fail(e, KL_ERR_IO, "cannot make a directory for the fleet's reports (%s): %s",
                       dir, strerror(errno));
    for (int i = 0; i < n && st == KL_OK; i++) {
        m[i].json = m[i].log = NULL;
        m[i].exit_code = 3;
        st = start(args, env, dir, i, &m[i], &pid[i], e);
    }
    /* Those started run to their end even when a later one could not start. */
    wait_all(pid, m, n);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/member-%d.json", dir, i);
        m[i].json = slurp(path);
        remove(path);
        snprintf(path, sizeof path, "%s/member-%d.log", dir, i);
        m[i].log = slurp(path);
        remove(path);
    }
    remove_rest(dir);
    return st;
}

void kl_fleet_spawn_free(struct kl_fleet_member *m, int n)
{
    for (int i = 0; i < n; i++) {
        free(m[i].json);
        free(m[i].log);
        m[i].json = m[i].log = NULL;
    }
}
